/**
 * Rendered reads: a query whose every field SQL can write is answered by one statement per
 * list that builds the response's JSON in the database. The pieces the root renderers share
 * are here: an object's columns and relations, connections (pages, cursors, totalCount), and
 * where a private field sends the read back to the executor.
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
import { columnName, MAX_RENDERED_KEYS, RENDERED, renderedByKeySql, sqlLiteral } from './nested-read.js';
import { REQUEST_NOW, VIEWER_USER_ID } from '../db/statement-scope.js';
import { READS_BY_TYPE } from '../modules/common/read-specs.js';
import { type RenderedColumnKind, renderedColumn, renderedTokens } from './columns.js';
import { parseNewestFirstPage } from '../modules/common/loaders.js';
import { snakeCaseKey } from './answer-form.js';
import { refuse, type RenderRefusal, type SelectionWalk } from './operation-walk.js';
import type { Page } from '../modules/common/pagination.js';
import type { WrittenRow } from '../modules/common/keyset-page.js';
import type { ServiceContext } from '../modules/context.js';

/**
 * Rendered reads: which selections the statement can write as the response's JSON itself
 * (read/nested-read.ts, RenderedObject), so no resolver runs and nothing is parsed or
 * serialized again in Node. A selection renders when every field in it is a plain column
 * (a field without a resolver, of a type whose value Postgres writes exactly as the
 * serializer would), a token amount, `__typename`, or a relation of the read specs
 * (common/read-specs.ts) whose own selection renders; anything else (a field with logic or
 * access checks in its resolver, bad arguments, a nested page with a filter) makes
 * the planner answer null, and the operation is executed as usual.
 */

/**
 * A root field's arguments at one request, as its resolver would receive them. A plan is
 * made from the selection and kept for the operation, so the arguments are given at each
 * request, never read while planning (see SelectionWalk.variables).
 */
export type RootArguments = Record<string, unknown>;

/** Pieces from..to (exclusive) of a rendered answer's text. */
export type PieceRange = readonly [number, number];

/**
 * JSON text in pieces, in order (the rows' texts as the driver gave them, never joined: the
 * response is encoded from the pieces once, see pipeline/http.ts). A connection's (or an
 * object holding one) also says where its members lie among them, by dotted path, so a REST
 * route takes its nodes without looking for them in the text.
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

/** A root field answered by a rendered read, for one request's context and arguments: its JSON text in pieces. */
export type RenderedRootField = (ctx: ServiceContext, args: RootArguments) => Promise<RenderedPieces>;

/**
 * A root field answered by a column of the operation's one shared statement
 * (read/nested-read.ts, SharedStatement): a scalar subquery writing its JSON text, so the
 * operation's root fields of this kind cost one statement together.
 */
export interface RenderedColumn {
  /** The column's SQL (made once per plan): fixed parameters onto `params`, per-request ones numbered by `slot`. */
  sql(params: unknown[], slot: (type: string) => string): string;
  /** The request's values of its slots, in order: the service's checks (the viewer, the arguments) run here, and may throw. */
  values(ctx: ServiceContext, args: RootArguments): unknown[];
  /** The field's JSON from the column's text (null: the subquery found nothing); may throw, to leave the operation to the executor. */
  write(json: string | null, args: RootArguments): string;
  /**
   * Planned without what its first run learns (the type of a `node` id): the operation's
   * plan is made again at its next request rather than kept.
   */
  provisional?: boolean;
}

/** Plans a root field's rendered read from its merged field nodes, or null when it does not render. */
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
 * What a rendered read may write of a row that is the viewer's own (the root field says so:
 * `viewer`), besides its public fields: the spec's owned relations, and these fields, each
 * rendered as SQL writing its JSON over the row (null when its selection does not render).
 * Nothing below the row is owned: its relations' rows render their public fields only.
 */
export interface OwnedRendering {
  values: Record<string, (definition: GraphQLField<unknown, unknown>, nodes: readonly FieldNode[], walk: SelectionWalk) => ValueSql | null>;
  /** Private columns of the row whose resolver only checks who asks: written as the row's other columns are. */
  columns?: ReadonlySet<string>;
}

/** The rendering of `type`'s selection `nodes` (one response key's fields, merged), or null when some field does not render. */
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
  const computed = owned?.values[name] ?? spec.computed?.[name];
  // Its SQL writes an object's keys as GraphQL names them.
  if (computed && walk.form === 'rest' && isObjectType(getNamedType(definition.type))) return refused('answer_form');
  if (computed) {
    const sql = computed(definition, nodes, walk);
    return sql ? { key, kind: 'value', sql } : refused('computed_field');
  }
  const viewerRow = spec.viewerRows?.[name];
  if (viewerRow) {
    const target = getNamedType(definition.type);
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
    const target = getNamedType(definition.type);
    if (!isObjectType(target)) return refused('resolver_field');
    if (relation.kind === 'one') {
      const object = renderedObject(target, relation.target(), nodes, walk);
      return object && { key, kind: 'one', relation: name, object };
    }
    let listed;
    try {
      const args = getArgumentValues(definition, nodes[0]!, walk.variables);
      if (!relation.plain || relation.plain(args)) listed = { page: parseNewestFirstPage(args), list: undefined };
      else if (relation.listed) listed = relation.listed(args, REQUEST_NOW);
      else return refused('page_arguments');
    } catch {
      return refused('page_arguments'); // the resolver reports bad arguments, on its own path
    }
    const connection = renderedConnection(target, relation.target(), nodes, walk, (responseKey) => writtenKey(walk, responseKey));
    if (!connection) return null;
    const { fields } = connection;
    // The page, each edge and its pageInfo are each one concat() of the statement, as a node is.
    const keyLists = [fields, ...fields.map((part) => (part.kind === 'edges' || part.kind === 'pageInfo' ? part.fields : []))];
    if (keyLists.some((keys) => keys.length > MAX_RENDERED_KEYS)) return refused('too_many_keys');
    return {
      key,
      kind: 'page',
      relation: name,
      page: listed.page,
      ...(listed.list && { list: listed.list }),
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
  const wanted =
    valueType instanceof GraphQLEnumType ? (isIdentityEnum(valueType) ? 'enum' : null) : SCALAR_KINDS[getNamedType(valueType).name];
  return column.kind === wanted ? { key, kind: 'value', sql: column.sql } : refused('resolver_field');
}

/** A response key as an object of the read graph writes it: in snake_case in the REST form (read/answer-form.ts). */
const writtenKey = (walk: SelectionWalk, key: string) => (walk.form === 'rest' ? snakeCaseKey(key) : key);

/** An enum whose GraphQL names are its stored values, so the column's text is what serialize returns. */
const isIdentityEnum = (type: GraphQLEnumType) => type.getValues().every((value) => value.value === value.name);

/**
 * The rendering of a connection's selection, or null when some part does not render. A root
 * connection's keys are GraphQL's in either answer form (a REST route finds its members by
 * them); a nested page's are written as its object's (`keyOf`).
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
    if (object) objects.push(object);
    return object ? objects.length - 1 : null;
  };
  const fields = connectionParts(connection, nodes, walk, addNode, undefined, keyOf);
  return fields && { objects, fields };
}

const PAGE_INFO_FIELDS = new Set<string>(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'] satisfies PageInfoFlag[]);

/**
 * A connection's parts: `addNode` renders one distinct `nodes` or `edges { node }` selection
 * and gives its index (null when it does not render); `extra` renders a field of this
 * connection type beyond the Relay ones (null when it does not). Null when some part does not render.
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

/**
 * Writes a top-level connection's JSON in pieces from `page`, whose rows hold their rendered
 * objects' texts in `renderedOf(row)`, with where each member's value lies among them.
 */
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
        out.push(f.kind === 'constant' ? f.json! : JSON.stringify(await info[f.kind]));
      }
      out.push('}');
    }
    members.set(field.key, [from, out.length]);
  }
  out.push('}');
  return Object.assign(out, { members });
}

/** The rendered objects' JSON texts a row of a rendered plan holds, in the plan's order. */
export const renderedOf = (row: object) => (row as { [RENDERED]: string[] })[RENDERED];

/**
 * A root field returning one object of the read graph (or null), rendered as a column of the
 * operation's shared statement: the row whose unique column `property` is the value `key`
 * gives (the service's own choice and checks of the key, e.g. parseId; it may throw).
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
    if (!spec || !object) return null;
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
 * What a root connection's statement writes of its rows: its objects, their positions where
 * it selects cursors, and the rows joined into one unless an object holds a nested page.
 * Joined, Node decodes one row where it decoded each (VIEWER_POOLS, small rows: 1.12-1.33x);
 * but a row holding a list is large, and joining such rows cost Postgres more than Node
 * saved (DEEP_KEYSET, rows of 2.5 KB: 0.76-0.90x), so those come as rows.
 */
export const pageRendering = ({ objects, fields }: RenderedConnection): PageRendering => ({
  objects,
  cursors: fields.some((part) => part.kind === 'edges' || part.kind === 'pageInfo'),
  joined: !objects.some(holdsPage),
});

/** Whether the object, or one it holds, writes a page of a relation. */
const holdsPage = (object: RenderedObject): boolean =>
  object.fields.some((field) => field.kind === 'page' || (field.kind === 'one' && holdsPage(field.object)));

/**
 * A root connection of the read graph's objects, rendered: `list` is the service's listing
 * the resolver makes (filters, paging, cursors, count), told what the statement writes
 * of each row.
 */
export function connectionRoot(
  list: (ctx: ServiceContext, args: RootArguments, rendering: PageRendering) => Promise<Page<WrittenRow>>,
): RootFieldRenderer {
  return (field, nodes, walk) => {
    const type = getNamedType(field.type) as GraphQLObjectType;
    const spec = READS_BY_TYPE[(getNamedType(type.getFields().nodes!.type) as GraphQLObjectType).name];
    const connection = spec && renderedConnection(type, spec, nodes, walk);
    if (!spec || !connection) return null;
    const rendering = pageRendering(connection);
    return async (ctx, args) => writeConnection(await list(ctx, args, rendering), connection, writtenObjects);
  };
}
