/**
 * Rendered reads: a query whose every field SQL can write is answered by one statement per list that writes the response's
 * JSON itself (read/nested-read.ts, RenderedObject), so no resolver runs and nothing is parsed or serialized again in Node.
 * A field renders when it is a plain column (no resolver, of a type Postgres writes exactly as the serializer would), a
 * token amount, `__typename`, or a read-spec relation (common/read-specs.ts) whose own selection renders; anything else
 * (logic or access checks in a resolver, bad arguments, a nested page with a filter) makes the planner answer null, and
 * the operation is executed as usual.
 */
import {
  type FieldNode,
  getArgumentValues,
  getNamedType,
  getNullableType,
  GraphQLEnumType,
  type GraphQLField,
  type GraphQLObjectType,
  isListType,
  isObjectType,
} from 'graphql';
import type {
  ConnectionPart,
  ObjectSpec,
  PageInfoFlag,
  PageRendering,
  RenderedConnection,
  RenderedField,
  RenderedObject,
  ValueSql,
} from './nested-read.js';
import { columnName, MAX_RENDERED_KEYS, renderedByKeySql, sqlLiteral } from './nested-read.js';
import { REQUEST_NOW, VIEWER_USER_ID } from '../db/statement-scope.js';
import { READS_BY_TYPE } from '../modules/common/read-specs.js';
import { type RenderedColumnKind, renderedColumn, renderedTokens } from './columns.js';
import { parseNewestFirstPage } from '../modules/common/loaders.js';
import { snakeCaseKey } from './answer-form.js';
import { refuse, type RenderRefusal, type SelectionWalk } from './operation-walk.js';
import type { Page } from '../modules/common/pagination.js';
import type { WrittenRow } from '../modules/common/keyset-page.js';
import type { ServiceContext } from '../modules/context.js';

/** As the resolver gets them: given per request, never read while planning, since the plan is kept (SelectionWalk.variables). */
export type RootArguments = Record<string, unknown>;

/** Pieces from..to (exclusive) of a rendered answer's text. */
export type PieceRange = readonly [number, number];

/**
 * JSON text in pieces, never joined: the response is encoded from them once (pipeline/http.ts). A connection (or an object
 * holding one) also notes its members' ranges by dotted path, so a REST route takes its nodes without searching the text.
 */
export type RenderedPieces = string[] & { members?: ReadonlyMap<string, PieceRange> };

/** Notes in `into` where `members` (ranges within a value whose pieces start at `from`) lie, under `key`: `key.member`. */
export function nestMembers(
  into: Map<string, PieceRange>,
  key: string,
  from: number,
  members: ReadonlyMap<string, PieceRange> | undefined,
): void {
  if (members) for (const [member, [start, end]] of members) into.set(`${key}.${member}`, [from + start, from + end]);
}

/** A root field with a rendered read of its own (not a column of the shared statement). */
export type RenderedRootField = (ctx: ServiceContext, args: RootArguments) => Promise<RenderedPieces>;

/**
 * A root field as a scalar-subquery column of the operation's one shared statement (read/nested-read.ts, SharedStatement),
 * so all such root fields cost one statement together.
 */
export interface RenderedColumn {
  /** The column's SQL (made once per plan): fixed parameters onto `params`, per-request ones numbered by `slot`. */
  sql(params: unknown[], slot: (type: string) => string): string;
  /** Its slots' values, in order: the service's checks (the viewer, the arguments) run here, and may throw. */
  values(ctx: ServiceContext, args: RootArguments): unknown[];
  /** The field's JSON from the column's text (null: the subquery found nothing); may throw, to leave the operation to the executor. */
  write(json: string | null, args: RootArguments): string;
  /** Planned without what its first run learns (a `node` id's type): the operation is planned again at its next request. */
  provisional?: boolean;
}

/** Null when the root field does not render; `nodes` are its merged field nodes. */
export type RootFieldRenderer = (
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
) => RenderedRootField | RenderedColumn | null;

/** Which column renderings a GraphQL scalar's serializer agrees with. */
const SCALAR_KINDS: Record<string, RenderedColumnKind> = {
  ID: 'text',
  String: 'text',
  Int: 'int',
  Float: 'float',
  Boolean: 'boolean',
  DateTime: 'timestamp',
};

/**
 * What renders of the viewer's own row (the root field says so: `viewer`) besides its public fields: the spec's owned
 * relations, and these fields as SQL over the row (null when the selection does not render). Nothing below the row is
 * owned: its relations' rows render their public fields only.
 */
export interface OwnedRendering {
  values: Record<string, (definition: GraphQLField<unknown, unknown>, nodes: readonly FieldNode[], walk: SelectionWalk) => ValueSql | null>;
  /** Private columns of the row whose resolver only checks who asks: written as the row's other columns are. */
  columns?: ReadonlySet<string>;
}

/** `nodes`: one response key's fields, merged. Null when some field does not render. */
export function renderedObject(
  type: GraphQLObjectType,
  spec: ObjectSpec,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
  owned?: OwnedRendering,
): RenderedObject | null {
  const collected = walk.fieldsOf(type, nodes);
  if (collected.size > MAX_RENDERED_KEYS) return refuse(walk, 'too_many_keys');
  const fields: RenderedField[] = [];
  for (const [key, fieldNodes] of collected) {
    const field = renderedField(type, spec, writtenKey(walk, key), fieldNodes, walk, owned);
    if (!field) return null;
    fields.push(field);
  }
  return { spec, fields };
}

function renderedField(
  type: GraphQLObjectType,
  spec: ObjectSpec,
  key: string,
  nodes: FieldNode[],
  walk: SelectionWalk,
  owned: OwnedRendering | undefined,
): RenderedField | null {
  const name = nodes[0]!.name.value;
  // A refusal names the field it is for, so a fallback's log line says which.
  const refused = (reason: RenderRefusal) => refuse(walk, reason, `${type.name}.${name}`);
  if (name === '__typename') return { key, kind: 'value', sql: () => sqlLiteral(JSON.stringify(type.name)) };
  const definition = type.getFields()[name];
  if (!definition) return refused('unknown_field');
  const target = getNamedType(definition.type);
  const computed = owned?.values[name] ?? spec.computed?.[name];
  // A computed object's SQL writes its keys as GraphQL names them, not in the REST form.
  if (computed && walk.form === 'rest' && isObjectType(target)) return refused('answer_form');
  if (computed) {
    const sql = computed(definition, nodes, walk);
    return sql ? { key, kind: 'value', sql } : refused('computed_field');
  }
  const viewerRow = spec.viewerRows?.[name];
  if (viewerRow) {
    if (!isObjectType(target)) return refused('resolver_field');
    const object = renderedObject(target, viewerRow.target(), nodes, walk);
    if (!object) return null;
    const table = object.spec.table;
    const sql: ValueSql = (alias, statement) =>
      statement.rowWhere(
        object,
        (row) =>
          `${row}."${columnName(table, viewerRow.parentKey)}" = ${alias}."id" AND ` +
          `${row}."${columnName(table, viewerRow.viewerKey)}" = ${statement.param(VIEWER_USER_ID, 'uuid')}`,
      );
    return { key, kind: 'value', sql };
  }
  const relation = spec.relations[name] ?? (owned ? spec.owned?.[name] : undefined);
  if (relation) {
    if (!isObjectType(target)) return refused('resolver_field');
    if (relation.kind === 'one') {
      const object = renderedObject(target, relation.target(), nodes, walk);
      return object && { key, kind: 'one', relation, object };
    }
    let listed;
    try {
      const args = getArgumentValues(definition, nodes[0]!, walk.variables);
      listed = !relation.plain || relation.plain(args) ? { page: parseNewestFirstPage(args) } : relation.listed?.(args, REQUEST_NOW);
    } catch {
      // the resolver reports bad arguments, on its own path
    }
    if (!listed) return refused('page_arguments');
    const connection = renderedConnection(target, relation.target(), nodes, walk, (responseKey) => writtenKey(walk, responseKey));
    if (!connection) return null;
    const { fields } = connection;
    // The page, each edge and its pageInfo are each one concat() of the statement, as a node is.
    const keyLists = [fields, ...fields.map((part) => (part.kind === 'edges' || part.kind === 'pageInfo' ? part.fields : []))];
    if (keyLists.some((keys) => keys.length > MAX_RENDERED_KEYS)) return refused('too_many_keys');
    return {
      key,
      kind: 'page',
      relation,
      ...listed,
      connection,
      // The REST form embeds a page selected as `{ nodes }` as the array of its nodes.
      nodesOnly: walk.form === 'rest' && fields.length === 1 && fields[0]!.kind === 'nodes',
    };
  }
  if (spec.amounts && Object.hasOwn(spec.amounts, name)) {
    const sql = renderedTokens(spec.table, name, spec.amountDecimals);
    return sql ? { key, kind: 'value', sql } : refused('computed_field');
  }
  if ((definition.resolve && !owned?.columns?.has(name)) || nodes[0]!.arguments?.length) return refused('resolver_field');
  const valueType = getNullableType(definition.type);
  if (isListType(valueType)) return refused('resolver_field');
  const column = renderedColumn(spec.table, name);
  if (!column) return refused('resolver_field');
  // An enum renders when its GraphQL names are its stored values: the column's text is then what serialize returns.
  const wanted =
    valueType instanceof GraphQLEnumType
      ? valueType.getValues().every((value) => value.value === value.name) && 'enum'
      : SCALAR_KINDS[target.name];
  return column.kind === wanted ? { key, kind: 'value', sql: column.sql } : refused('resolver_field');
}

/** The REST form writes the read graph's keys in snake_case (read/answer-form.ts). */
const writtenKey = (walk: SelectionWalk, key: string) => (walk.form === 'rest' ? snakeCaseKey(key) : key);

/**
 * Null when some part does not render. A root connection keeps GraphQL's keys in either answer form (a REST route finds
 * its members by them); a nested page's are written as its object's (`keyOf`).
 */
export function renderedConnection(
  connection: GraphQLObjectType,
  spec: ObjectSpec,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
  keyOf?: (responseKey: string) => string,
): RenderedConnection | null {
  const objects: RenderedObject[] = [];
  const nodeType = getNamedType(connection.getFields().nodes!.type) as GraphQLObjectType;
  const addNode = (fieldNodes: readonly FieldNode[]) => {
    const object = renderedObject(nodeType, spec, fieldNodes, walk);
    return object && objects.push(object) - 1;
  };
  const fields = connectionParts(connection, nodes, walk, addNode, undefined, keyOf);
  return fields && { objects, fields };
}

const PAGE_INFO_FIELDS = new Set<string>(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'] satisfies PageInfoFlag[]);

/**
 * `addNode` renders one distinct `nodes` or `edges { node }` selection and gives its index; `extra` renders a field beyond
 * the Relay ones. Either answers null when its part does not render, and then so does this.
 */
export function connectionParts(
  connection: GraphQLObjectType,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
  addNode: (fieldNodes: readonly FieldNode[]) => number | null,
  extra: (key: string, fieldNodes: FieldNode[]) => ConnectionPart | null = () => null,
  keyOf: (responseKey: string) => string = (responseKey) => responseKey,
): ConnectionPart[] | null {
  const typename = (type: GraphQLObjectType) => ({ kind: 'constant' as const, json: JSON.stringify(type.name) });
  const fields: ConnectionPart[] = [];
  const fieldsOf = (type: GraphQLObjectType, selected: readonly FieldNode[]) =>
    [...walk.fieldsOf(type, selected)].map(([responseKey, fieldNodes]) => [keyOf(responseKey), fieldNodes] as const);
  for (const [key, fieldNodes] of fieldsOf(connection, nodes)) {
    const name = fieldNodes[0]!.name.value;
    if (name === '__typename') fields.push({ key, ...typename(connection) });
    else if (name === 'totalCount') fields.push({ key, kind: 'totalCount' });
    else if (name === 'nodes') {
      const object = addNode(fieldNodes);
      if (object === null) return null;
      fields.push({ key, kind: 'nodes', object });
    } else if (name === 'edges') {
      const edgeType = getNamedType(connection.getFields().edges!.type) as GraphQLObjectType;
      const edgeFields: Extract<ConnectionPart, { kind: 'edges' }>['fields'] = [];
      for (const [edgeKey, edgeNodes] of fieldsOf(edgeType, fieldNodes)) {
        const edgeName = edgeNodes[0]!.name.value;
        if (edgeName === '__typename') edgeFields.push({ key: edgeKey, ...typename(edgeType) });
        else if (edgeName === 'cursor') edgeFields.push({ key: edgeKey, kind: 'cursor' });
        else if (edgeName === 'node') {
          const object = addNode(edgeNodes);
          if (object === null) return null;
          edgeFields.push({ key: edgeKey, kind: 'node', object });
        } else return refuse(walk, 'unknown_field');
      }
      fields.push({ key, kind: 'edges', fields: edgeFields });
    } else if (name === 'pageInfo') {
      const infoType = getNamedType(connection.getFields().pageInfo!.type) as GraphQLObjectType;
      const infoFields: Extract<ConnectionPart, { kind: 'pageInfo' }>['fields'] = [];
      for (const [infoKey, infoNodes] of fieldsOf(infoType, fieldNodes)) {
        const infoName = infoNodes[0]!.name.value;
        if (infoName === '__typename') infoFields.push({ key: infoKey, ...typename(infoType) });
        else if (PAGE_INFO_FIELDS.has(infoName)) infoFields.push({ key: infoKey, kind: infoName as PageInfoFlag });
        else return refuse(walk, 'unknown_field');
      }
      fields.push({ key, kind: 'pageInfo', fields: infoFields });
    } else {
      const part = extra(key, fieldNodes);
      if (!part) return refuse(walk, 'computed_field');
      fields.push(part);
    }
  }
  return fields;
}

/** A top-level connection's JSON in pieces, with each member's range; `renderedOf(row)` gives a row's rendered objects' texts. */
export async function writeConnection<T>(
  page: Page<T>,
  connection: Pick<RenderedConnection, 'fields'>,
  renderedOf: (row: T) => string[],
): Promise<RenderedPieces> {
  const out: string[] = ['{'];
  const members = new Map<string, PieceRange>();
  const key = (name: string, index: number) => out.push(`${index ? ',' : ''}${JSON.stringify(name)}:`);
  const list = <E>(items: readonly E[], write: (item: E) => void) => {
    out.push('[');
    items.forEach((item, i) => {
      if (i) out.push(',');
      write(item);
    });
    out.push(']');
  };
  for (const [index, field] of connection.fields.entries()) {
    key(field.key, index);
    const from = out.length;
    if (field.kind === 'constant') out.push(field.json);
    else if (field.kind === 'page') out.push(field.write(page));
    else if (field.kind === 'totalCount') out.push(JSON.stringify(await page.totalCount));
    else if (field.kind === 'nodes') list(page.nodes, (row) => out.push(renderedOf(row)[field.object]!));
    else if (field.kind === 'edges') {
      list(page.edges, (edge) => {
        out.push('{');
        field.fields.forEach((f, i) => {
          key(f.key, i);
          out.push(f.kind === 'constant' ? f.json : f.kind === 'cursor' ? JSON.stringify(edge.cursor) : renderedOf(edge.node)[f.object]!);
        });
        out.push('}');
      });
    } else {
      const info = page.pageInfo;
      out.push('{');
      for (const [i, f] of field.fields.entries()) {
        key(f.key, i);
        out.push(f.kind === 'constant' ? f.json : JSON.stringify(await info[f.kind]));
      }
      out.push('}');
    }
    members.set(field.key, [from, out.length]);
  }
  out.push('}');
  return Object.assign(out, { members });
}

/**
 * A root field returning one read-graph object (or null), as a column of the shared statement: the row whose unique column
 * `property` is `key`'s value (the service's own choice and checks of the key, e.g. parseId; it may throw).
 */
export function objectRoot(
  property: string,
  key: (ctx: ServiceContext, args: RootArguments) => string,
  /** Only where `key` names the viewer's own row, whoever the viewer is: what else renders of it. */
  owned?: OwnedRendering,
): RootFieldRenderer {
  return (field, nodes, walk) => {
    const type = getNamedType(field.type) as GraphQLObjectType;
    const spec = READS_BY_TYPE[type.name];
    const object = spec && renderedObject(type, spec, nodes, walk, owned);
    if (!object) return null;
    return {
      sql: (params, slot) => renderedByKeySql(object, property, slot, params),
      values: (ctx, args) => [key(ctx, args)],
      write: (json) => json ?? 'null',
    };
  };
}

/** The rendered objects' texts of a row its page's statement wrote. */
export const writtenObjects = (row: WrittenRow) => row.objects;

/**
 * Rows are joined into one unless an object holds a nested page: Node then decodes one row, not each (small rows: 1.12-1.33x),
 * but joining large rows holding a list cost Postgres more than Node saved (2.5 KB rows: 0.76-0.90x).
 */
export const pageRendering = ({ objects, fields }: RenderedConnection): PageRendering => ({
  objects,
  cursors: fields.some((part) => part.kind === 'edges' || part.kind === 'pageInfo'),
  joined: !objects.some(holdsPage),
});

/** Whether the object, or one it holds, writes a page of a relation. */
const holdsPage = (object: RenderedObject): boolean =>
  object.fields.some((field) => field.kind === 'page' || (field.kind === 'one' && holdsPage(field.object)));

/** A root connection: `list` is the service's listing (filters, paging, cursors, count), told what to write of each row. */
export function connectionRoot(
  list: (ctx: ServiceContext, args: RootArguments, rendering: PageRendering) => Promise<Page<WrittenRow>>,
): RootFieldRenderer {
  return (field, nodes, walk) => {
    const type = getNamedType(field.type) as GraphQLObjectType;
    const spec = READS_BY_TYPE[(getNamedType(type.getFields().nodes!.type) as GraphQLObjectType).name];
    const connection = spec && renderedConnection(type, spec, nodes, walk);
    if (!connection) return null;
    const rendering = pageRendering(connection);
    return async (ctx, args) => writeConnection(await list(ctx, args, rendering), connection, writtenObjects);
  };
}
