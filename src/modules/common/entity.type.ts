import { Field, ID, ObjectType } from 'type-graphql';
import { Node } from '../node/node.type.js';
import { DateTime } from './scalars.js';

/** The fields every stored resource of the interface has; object types extend it, and so implement Node. */
@ObjectType({ simpleResolvers: true, implements: Node })
export abstract class Entity {
  @Field(() => ID, { description: 'Unique identifier of the record.' })
  id!: string;

  @Field(() => DateTime, { description: 'When the record was created.' })
  createdAt!: Date;

  @Field(() => DateTime, { description: 'When the record last changed.' })
  updatedAt!: Date;
}
