import { Field, ID, ObjectType } from 'type-graphql';
import { DateTime } from './scalars.js';

/** The fields every stored resource of the interface has; object types extend it. */
@ObjectType({ simpleResolvers: true })
export abstract class Entity {
  @Field(() => ID)
  id!: string;

  @Field(() => DateTime)
  createdAt!: Date;

  @Field(() => DateTime)
  updatedAt!: Date;
}
