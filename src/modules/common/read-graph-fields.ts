import type { PgTable } from 'drizzle-orm/pg-core';
import { Args, Ctx, FieldResolver, Float, getMetadataStorage, type ParameterDecorator, Root } from 'type-graphql';
import type { ObjectSpec, OneRelationSpec, RelationSpec } from '../../read/nested-read.js';
import type { ResolverContext } from '../context.js';
import { toTokens } from './amounts.js';
import { pgColumn } from '../../read/columns.js';
import { parseNewestFirstPage, relationOne, relationPage } from './loaders.js';
import { PageArgs } from './page.args.js';
import { ReadsPageArguments } from './page-arguments.js';
import { READ_GRAPH, typeNameOf } from './read-specs.js';

/**
 * On a type's resolver class (above its `@Resolver`), makes the read graph's (common/read-specs.ts) GraphQL fields from their entries,
 * so none needs a written resolver: a `@FieldResolver` with an explicit type function and the entry's description for
 * - each token amount: a Float in whole tokens, by the row's `decimals` (a type whose decimals are elsewhere, as a streak reward's,
 *   writes its own);
 * - each public one-to-one relation: the target's type, non-null only if its key column is NOT NULL and names the target's primary
 *   key through every relation it goes through; read with `relationOne`;
 * - each public page: `<Type>Connection` with PageArgs (parseNewestFirstPage checks them before execution); read with `relationPage`.
 * A page with arguments of its own (`plain`: a filter, another order) is written by its module, answering the plain page through
 * `relationPage`; so are owned relations, whose service checks the viewer. Made fields go before the first relation the class writes
 * itself that follows them in the graph's order, otherwise after the class's own fields.
 */
export function ReadGraphFields(): ClassDecorator {
  return (target) => {
    const storage = getMetadataStorage();
    const resolver = storage.resolverClasses.find((metadata) => metadata.target === target);
    if (!resolver) throw new Error(`@ReadGraphFields() on ${target.name}: put it above @Resolver(() => Type)`);
    const typeClass = resolver.getObjectType();
    const typeName = storage.objectTypes.find((type) => type.target === typeClass)?.name;
    const spec = typeName ? READ_GRAPH[typeName] : undefined;
    if (!typeName || !spec)
      throw new Error(`@ReadGraphFields() on ${target.name}: ${typeName ?? 'its type'} has no read in the read graph`);
    const prototype = target.prototype as Record<string, unknown>;
    // A field the class writes is not made; a plain method of its name would shadow the made one.
    const makes = (field: string) => {
      if (storage.fieldResolvers.some((metadata) => metadata.target === target && metadata.schemaName === field)) return false;
      if (Object.hasOwn(prototype, field))
        throw new Error(`${typeName}.${field}: ${target.name} has a method ${field} that is no field resolver`);
      MADE_READ_GRAPH_FIELDS.add(`${typeName}.${field}`);
      return true;
    };
    for (const [field, description] of Object.entries(spec.amounts ?? {})) {
      if (!makes(field)) continue;
      const tokens = (row: Record<string, unknown>) => toTokens(row[field] as bigint, row.decimals as number);
      defineField(prototype, field, tokens, [FieldResolver(() => Float, { description })], [Root()]);
    }
    const made: string[] = [];
    for (const [field, relation] of Object.entries(spec.relations)) {
      if (!makes(field)) continue;
      if (relation.kind === 'page' && relation.plain)
        throw new Error(`${typeName}.${field} takes arguments of its own (its entry has \`plain\`): ${target.name} must write its field`);
      defineRelationField(prototype, spec, field, relation);
      made.push(field);
    }
    keepGraphOrder(target, Object.keys(spec.relations), made);
  };
}

/** The fields made so far (amounts and relations), as `Type.field`. */
export const MADE_READ_GRAPH_FIELDS = new Set<string>();

/** Defines `field`'s resolver method on `prototype` and applies its decorators (then its parameters'), as a written method's would be. */
function defineField(
  prototype: Record<string, unknown>,
  field: string,
  method: (...params: never[]) => unknown,
  decorators: MethodDecorator[],
  parameters: ParameterDecorator[],
) {
  const descriptor = { value: method, writable: true, configurable: true, enumerable: false };
  Object.defineProperty(prototype, field, descriptor);
  for (const decorate of decorators) decorate(prototype, field, descriptor);
  parameters.forEach((decorate, i) => decorate(prototype, field, i));
}

function defineRelationField(prototype: Record<string, unknown>, spec: ObjectSpec, field: string, relation: RelationSpec) {
  const { description } = relation;
  if (!description) throw new Error(`${typeNameOf(spec)}.${field} has no description in the read graph (common/read-specs.ts)`);
  const targetName = typeNameOf(relation.target());
  if (relation.kind === 'one') {
    const nullable = !alwaysFinds(spec.table, relation);
    const method = (row: object, ctx: ResolverContext) => relationOne(ctx.loaders.graph, row, spec, field);
    defineField(prototype, field, method, [FieldResolver(() => objectTypeNamed(targetName), { nullable, description })], [Root(), Ctx()]);
    return;
  }
  const method = (row: { id: string }, args: PageArgs, ctx: ResolverContext) =>
    relationPage(ctx.loaders.graph, row, spec, field, args as Record<string, unknown>);
  const connection = FieldResolver(() => objectTypeNamed(`${targetName}Connection`), { description });
  defineField(prototype, field, method, [ReadsPageArguments(parseNewestFirstPage), connection], [Root(), Args(() => PageArgs), Ctx()]);
}

/** Reorders the made fields as ReadGraphFields describes: type-graphql lists a type's fields in the order they were declared. */
function keepGraphOrder(target: Function, order: string[], made: string[]) {
  const resolvers = getMetadataStorage().fieldResolvers;
  const indexOf = (field: string) => resolvers.findIndex((metadata) => metadata.target === target && metadata.schemaName === field);
  for (const field of made) {
    const next = order.slice(order.indexOf(field) + 1).find((later) => !made.includes(later) && indexOf(later) >= 0);
    if (next === undefined) continue;
    const [metadata] = resolvers.splice(indexOf(field), 1);
    resolvers.splice(indexOf(next), 0, metadata!);
  }
}

/** Whether a one-to-one relation finds a row for every parent: its key is NOT NULL and is the target's primary key, all the way. */
function alwaysFinds(parent: PgTable, relation: OneRelationSpec): boolean {
  if (relation.through && !alwaysFinds(parent, relation.through)) return false;
  const holder = relation.through ? relation.through.target().table : parent;
  const key = pgColumn(holder, relation.parentKey);
  const found = pgColumn(relation.target().table, relation.childKey);
  return key.notNull && found.primary;
}

/** The class of the type-graphql object type named `name` (looked up when the schema is built). */
function objectTypeNamed(name: string): Function {
  const types = getMetadataStorage().objectTypes.filter((type) => type.name === name);
  if (types.length !== 1) throw new Error(`${types.length} object types are named ${name}; a relation's field needs exactly one`);
  return types[0]!.target;
}
