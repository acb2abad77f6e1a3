import { type FieldNode, getArgumentValues, getNamedType, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { allColumns, hasColumn, type ObjectSpec, type ReadPlan } from './nested-read.js';
import { pageKey, pagePosition, parseNewestFirstPage } from '../modules/common/loaders.js';
import type { SelectionWalk } from './operation-walk.js';
import { walkOf } from './operation-walks.js';

/**
 * Turns a field's GraphQL selection into a read plan (read/nested-read.ts): the columns each
 * type's selected fields need, and the relations of `ObjectSpec.relations` selected under
 * it. Resolvers call it; services receive the plan and know nothing of GraphQL.
 *
 * Every row keeps its id, created_at (the newest-first cursor) and decimals (the amounts'
 * conversion); a field that is neither a column nor a planned relation (a relation left to
 * its loader, a private field) makes the plan read the whole row, as the loaders do.
 */
export function planOfConnection(info: GraphQLResolveInfo, spec: ObjectSpec): ReadPlan {
  return planOfField(info, spec, addConnection);
}

/** The read plan of a field returning one object of `spec` (e.g. `pool(id)`), from its selection. */
export function planOfObject(info: GraphQLResolveInfo, spec: ObjectSpec): ReadPlan {
  return planOfField(info, spec, addObject);
}

type AddSelections = (plan: ReadPlan, type: GraphQLObjectType, nodes: readonly FieldNode[], walk: SelectionWalk) => unknown;

function planOfField(info: GraphQLResolveInfo, spec: ObjectSpec, add: AddSelections): ReadPlan {
  const plan = emptyPlan(spec);
  const type = getNamedType(info.returnType) as GraphQLObjectType;
  const walk = walkOf(info);
  add(plan, type, info.fieldNodes, walk);
  return plan;
}

/** A plan of `spec` reading the whole row and no relation. */
export function wholeRowPlan(spec: ObjectSpec): ReadPlan {
  const plan = emptyPlan(spec);
  for (const column of allColumns(spec.table)) plan.columns.add(column);
  return plan;
}

function emptyPlan(spec: ObjectSpec): ReadPlan {
  const plan: ReadPlan = { spec, columns: new Set(['id', 'createdAt']), relations: new Map() };
  if (hasColumn(spec.table, 'decimals')) plan.columns.add('decimals');
  return plan;
}

/** Selections of a connection: `nodes`, `edges { node }` into `plan`; the rest needs no column. Returns whether totalCount is selected. */
function addConnection(plan: ReadPlan, connection: GraphQLObjectType, nodes: readonly FieldNode[], walk: SelectionWalk): boolean {
  let counted = false;
  for (const fieldNodes of walk.fieldsOf(connection, nodes).values()) {
    const name = fieldNodes[0]!.name.value;
    if (name === 'totalCount') counted = true;
    if (name === 'nodes') addObject(plan, getNamedType(connection.getFields().nodes!.type) as GraphQLObjectType, fieldNodes, walk);
    if (name === 'edges') {
      const edge = getNamedType(connection.getFields().edges!.type) as GraphQLObjectType;
      for (const inner of walk.fieldsOf(edge, fieldNodes).values())
        if (inner[0]!.name.value === 'node') addObject(plan, getNamedType(edge.getFields().node!.type) as GraphQLObjectType, inner, walk);
    }
  }
  return counted;
}

function addObject(plan: ReadPlan, type: GraphQLObjectType, nodes: readonly FieldNode[], walk: SelectionWalk): void {
  for (const fieldNodes of walk.fieldsOf(type, nodes).values()) addField(plan, type, fieldNodes, walk);
}

function addField(plan: ReadPlan, type: GraphQLObjectType, nodes: readonly FieldNode[], walk: SelectionWalk): void {
  const node = nodes[0]!;
  const name = node.name.value;
  if (name === '__typename') return;
  const relation = plan.spec.relations[name];
  const field = type.getFields()[name];
  if (relation && field && node.selectionSet) {
    const target = getNamedType(field.type) as GraphQLObjectType;
    if (relation.kind === 'one') {
      let child = plan.relations.get(name);
      if (!child) plan.relations.set(name, (child = { spec: relation, page: null, count: false, plan: emptyPlan(relation.target()) }));
      addObject(child.plan, target, nodes, walk);
      return;
    }
    let page;
    try {
      const args = getArgumentValues(field, node, walk.variables);
      // Arguments past a plain page (a filter, another order): the resolver's own query.
      if (relation.plain && !relation.plain(args)) return addWholeRow(plan);
      page = parseNewestFirstPage(args);
    } catch {
      // Bad arguments: the relation's own resolver reports them, on its own path.
      return addWholeRow(plan);
    }
    const key = pageKey(name, page);
    let child = plan.relations.get(key);
    if (!child)
      plan.relations.set(key, (child = { spec: relation, page: pagePosition(page), count: false, plan: emptyPlan(relation.target()) }));
    if (addConnection(child.plan, target, nodes, walk)) child.count = true;
    return;
  }
  if (hasColumn(plan.spec.table, name)) plan.columns.add(name);
  else addWholeRow(plan);
}

function addWholeRow(plan: ReadPlan): void {
  for (const column of allColumns(plan.spec.table)) plan.columns.add(column);
}
