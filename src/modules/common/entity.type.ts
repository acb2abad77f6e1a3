import { Field, ID, ObjectType } from 'type-graphql';
import { Node } from '../node/node.type.js';
import { DateTime } from './scalars.js';

/** The fields every stored resource of the interface has; object types extend it, and so implement Node. */
@ObjectType({ simpleResolvers: true, implements: Node })
export abstract class Entity {
  @Field(() => ID)
  id!: string;

  @Field(() => DateTime)
  createdAt!: Date;

  @Field(() => DateTime)
  updatedAt!: Date;
}
