import { getTableName } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { ReadQuery } from '../db/client.js';
import {
  beyondCursorSql,
  type ChildList,
  type ChildPage,
  childPage,
  childRowsSql,
  countSql,
  NEWEST_FIRST_LIST,
  orderBySql,
  type PagePosition,
  paramOf,
} from './keyset.js';
import { pgColumn } from './columns.js';

/**
 * One statement per read subtree (as PostGraphile plans one): a list's rows, each written as its response JSON, with a correlated
 * subquery per relation writing its JSON in place, so nested relations cost one round trip and Node never decodes their rows.
 * The text depends on the plan's shape alone (values are parameters), so equal shapes share one prepared statement.
 */

/** How a type is read: its table, the relations a plan may follow, and its token amounts. */
export interface ObjectSpec {
  table: PgTable;
  relations: Record<string, RelationSpec>;
  /** Private to the row's owner (and admins): rendered only where the row is known to be the viewer's (read/rendered-read.ts). */
  owned?: Record<string, RelationSpec>;
  /** SQL-computed fields: the field's JSON over the row's alias for this selection (GraphQL's, opaque here), or null: the resolver answers. */
  computed?: Record<string, (definition: any, nodes: readonly any[], walk: any) => ValueSql | null>;
  /**
   * The viewer's own `target` row, whose `parentKey` is the parent's id and `viewerKey` the viewer's user id. The viewer is bound at
   * each run (db/statement-scope.ts, VIEWER_USER_ID), so one plan serves every viewer.
   */
  viewerRows?: Record<string, { target: () => ObjectSpec; parentKey: string; viewerKey: string }>;
  /** Whole-token fields, to their description: each the base-units column of the same property, scaled by the row's `decimals`. */
  amounts?: Record<string, string>;
  /** The amounts' decimals over the row's alias, for a table without a `decimals` column. */
  amountDecimals?: (alias: string) => string;
}

/** `description`: the GraphQL field's, where the read graph makes the field (modules/common/read-graph-fields.ts). */
export type RelationSpec =
  /** The child whose `childKey` equals the parent's `parentKey`; with `through`, that relation's row's `parentKey` (a prediction's streak is its pool's). */
  | { kind: 'one'; target: () => ObjectSpec; parentKey: string; childKey: string; through?: OneRelationSpec; description?: string }
  /**
   * A newest-first page of children whose `parentKey` is the parent's id. `plain`: the arguments ask for that page alone; else `listed`
   * gives their list and page (throws on bad arguments; `now` is what lifecycle filters compare with), or the resolver answers.
   */
  | {
      kind: 'page';
      target: () => ObjectSpec;
      parentKey: string;
      plain?: (args: Record<string, unknown>) => boolean;
      listed?: (args: Record<string, unknown>, now: unknown) => { list: ChildList; page: PagePosition };
      description?: string;
    };

export type OneRelationSpec = Extract<RelationSpec, { kind: 'one' }>;

export const columnName = (table: PgTable, property: string): string => pgColumn(table, property).name;

/** A `through` key is read by a scalar subquery (an index lookup, as the relation itself is). */
function joinSql(parent: PgTable, relation: OneRelationSpec, parentAlias: string, child: string): string {
  const childKey = `${child}."${columnName(relation.target().table, relation.childKey)}"`;
  const { through } = relation;
  if (!through) return `${childKey} = ${parentAlias}."${columnName(parent, relation.parentKey)}"`;
  const via = through.target().table;
  const viaAlias = `${child}v`;
  return `${childKey} = (SELECT ${viaAlias}."${columnName(via, relation.parentKey)}" FROM "${getTableName(via)}" ${viaAlias} WHERE ${joinSql(parent, through, parentAlias, viaAlias)})`;
}

/**
 * A row the statement writes as its response JSON, byte for byte as JSON.stringify would: the response keys in order, each a value
 * (SQL over the row's alias), a one-to-one relation, or a relation's page. What renders how is decided GraphQL-side (read/rendered-read.ts).
 */
export interface RenderedObject {
  spec: ObjectSpec;
  fields: RenderedField[];
}

export type RenderedField =
  | { key: string; kind: 'value'; sql: ValueSql }
  | { key: string; kind: 'one'; relation: OneRelationSpec; object: RenderedObject }
  /** `nodesOnly`: the array of its one `nodes` field's objects (the REST form); `list`: another order or a filter, not newest first. */
  | {
      key: string;
      kind: 'page';
      relation: Extract<RelationSpec, { kind: 'page' }>;
      page: PagePosition;
      connection: RenderedConnection;
      nodesOnly?: boolean;
      list?: ChildList;
    };

/** The SQL of a value's JSON text over its row's alias. */
export type ValueSql = (alias: string, statement: StatementWriter) => string;

export interface StatementWriter {
  /** A parameter's placeholder (a marker such as VIEWER_USER_ID is bound at each run: db/statement-scope.ts). */
  param(value: unknown, type: string): string;
  /** `object`'s JSON for the row `where` (SQL over the row's alias) finds; `null` where none does. */
  rowWhere(object: RenderedObject, where: (alias: string) => string): string;
  /** The JSON array of `object`'s JSON for every row `where` finds, in `order`; `[]` where none does. */
  rowsWhere(object: RenderedObject, where: (alias: string) => string, order: (alias: string) => string): string;
}

/**
 * A connection's distinct node selections (`nodes`, `edges { node }`), and parts in response order naming them by index. A root
 * connection's parts are written in Node (read/rendered-read.ts, writeConnection); a nested page's by its statement.
 */
export interface RenderedConnection {
  objects: RenderedObject[];
  fields: ConnectionPart[];
}

/**
 * What a root list's statement writes of its rows (modules/common/keyset-page.ts, renderedKeysetPage): the connection's objects,
 * positions when it selects cursors (edges or pageInfo), and whether the rows are joined into one.
 */
export interface PageRendering {
  objects: RenderedObject[];
  cursors: boolean;
  joined: boolean;
}

export type ConnectionPart =
  | { key: string; kind: 'nodes'; object: number }
  | {
      key: string;
      kind: 'edges';
      fields: Array<{ key: string; kind: 'cursor' } | { key: string; kind: 'node'; object: number } | Constant>;
    }
  | { key: string; kind: 'pageInfo'; fields: Array<{ key: string; kind: PageInfoFlag } | Constant> }
  | { key: string; kind: 'totalCount' }
  | Constant
  /** Beyond the Relay fields (the leaderboard's viewerEntry), written in Node from the page: root connections only. */
  | { key: string; kind: 'page'; write: (page: unknown) => string };

/** A value known when planning (`__typename`), as its JSON text. */
type Constant = { key: string; kind: 'constant'; json: string };

export type PageInfoFlag = 'hasNextPage' | 'hasPreviousPage' | 'startCursor' | 'endCursor';

/** concat() takes at most 100 arguments: two per key and the closing brace. */
export const MAX_RENDERED_KEYS = 49;

/**
 * The select list writing `objects`' JSON over `alias` as `"$j0"`, `"$j1"`, ... (the caller writes FROM onward). Kept with the objects
 * (a plan lives per operation and variables) so a request neither rebuilds the text (a twentieth of a rendered read's Node time) nor
 * hashes a new string to find its prepared statement; only when `params` starts empty, as its parameters are numbered.
 */
export function renderedSelect(objects: RenderedObject[], alias: string, params: unknown[]): string {
  const write = (into: unknown[]) => {
    const counter = { next: 0 };
    return objects.map((object, i) => `${renderedObjectSql(object, alias, into, counter)} AS "${renderedTextColumn(i)}"`).join(', ');
  };
  if (params.length) return write(params);
  let byAlias = renderedSelects.get(objects);
  if (!byAlias) renderedSelects.set(objects, (byAlias = new Map()));
  let kept = byAlias.get(alias);
  if (!kept) {
    const own: unknown[] = [];
    byAlias.set(alias, (kept = { list: write(own), params: own }));
  }
  params.push(...kept.params);
  return kept.list;
}

const renderedSelects = new WeakMap<RenderedObject[], Map<string, { list: string; params: unknown[] }>>();

/** Made once: a row's texts are read by these names at every row of every page. */
const TEXT_COLUMNS = Array.from({ length: MAX_RENDERED_KEYS }, (_, i) => `$j${i}`);

/** The column {@link renderedSelect}'s list writes the `index`th object's JSON text in. */
export const renderedTextColumn = (index: number) => TEXT_COLUMNS[index] ?? `$j${index}`;

/** The JSON texts a row of {@link renderedSelect}'s list holds, in the objects' order. */
export function renderedTexts(row: Record<string, unknown>, count: number): string[] {
  const texts: string[] = [];
  for (let i = 0; i < count; i++) texts.push(row[renderedTextColumn(i)] as string);
  return texts;
}

/** The page as a JSON array of what `row` writes per child, in the list's order (a backward page is read backwards, turned back here). */
function pageRowsSql(of: ChildPage, child: string, row: (child: string) => string): string {
  const from = childRowsSql(of, child, of.page.size);
  return `(SELECT ${jsonArraySql(row(child), orderBySql(of, child, false))} FROM ${from})`;
}

/** With bare commas, as JSON.stringify joins them; `[]` for no rows. */
const jsonArraySql = (json: string, orderBy: string) => `'[' || coalesce(string_agg(${json}, ',' ORDER BY ${orderBy}), '') || ']'`;

/**
 * A pageInfo flag as pageOf (modules/common/pagination.ts) answers it: rows ahead in the reading direction (reading one past the page),
 * rows on the cursor's other side (none without a cursor), or the page's first or last row's cursor (null for an empty page).
 */
function pageInfoSql(of: ChildPage, list: ChildList, child: string, flag: PageInfoFlag): string {
  const { page } = of;
  const truth = (condition: string) => `CASE WHEN ${condition} THEN 'true' ELSE 'false' END`;
  if (flag === 'startCursor' || flag === 'endCursor') {
    const from = childRowsSql(of, child, page.size);
    return `coalesce((SELECT ${cursorSql(list, child)} FROM ${from} ORDER BY ${orderBySql(of, child, flag === 'endCursor')} LIMIT 1), 'null')`;
  }
  if ((flag === 'hasNextPage') !== page.backward)
    return truth(`(SELECT count(*) FROM ${childRowsSql(of, child, page.size + 1)}) > ${page.size}`);
  const beyond = beyondCursorSql(of, child);
  return beyond ? truth(beyond) : `'false'`;
}

/**
 * encodeCursor's bytes (modules/common/pagination.ts): unpadded base64url of `["<list's name>","<key>","<id>"]`, none needing
 * escapes (constants, timestamps, integers). translate() drops the line breaks Postgres' base64 writes every 76 characters.
 */
function cursorSql(list: ChildList, alias: string): string {
  const json = `concat('["${list.name}","', ${list.cursorKey(alias)}, '","', ${alias}."id", '"]')`;
  return `'"' || rtrim(translate(encode(convert_to(${json}, 'UTF8'), 'base64'), E'+/\\n', '-_'), '=') || '"'`;
}

/** Written by concatenation: json_build_object's `"key" : value` spacing and `, ` separators are not the bytes JSON.stringify writes. */
function renderedObjectSql(object: RenderedObject, alias: string, params: unknown[], counter: { next: number }): string {
  return jsonObjectSql(object.fields.map((field) => [field.key, renderedFieldSql(object.spec, field, alias, params, counter)]));
}

/** A scalar subquery of `select` over `object`'s JSON at the row (aliased `row`) `where` finds. */
function rowSql(
  object: RenderedObject,
  row: string,
  where: (alias: string) => string,
  params: unknown[],
  counter: { next: number },
  select = (json: string) => json,
): string {
  const json = select(renderedObjectSql(object, row, params, counter));
  return `(SELECT ${json} FROM "${getTableName(object.spec.table)}" ${row} WHERE ${where(row)})`;
}

function statementWriter(params: unknown[], counter: { next: number }): StatementWriter {
  return {
    param: paramOf(params),
    rowWhere: (object, where) => `coalesce(${rowSql(object, `t${++counter.next}`, where, params, counter)}, 'null')`,
    rowsWhere: (object, where, order) => {
      const row = `t${++counter.next}`;
      return rowSql(object, row, where, params, counter, (json) => jsonArraySql(json, order(row)));
    },
  };
}

/** `{"k":v,...}` from keys (GraphQL names, which need no escaping) and SQL writing each value's JSON text. */
export function jsonObjectSql(entries: Array<[string, string]>): string {
  if (!entries.length) return `'{}'`;
  // One concat() call writes the text once (a chain of || copies it at every step); every value's SQL is non-null.
  return `concat(${entries.map(([key, sql], i) => `'${i ? ',' : '{'}"${key}":', ${sql}`).join(', ')}, '}')`;
}

function renderedFieldSql(spec: ObjectSpec, field: RenderedField, alias: string, params: unknown[], counter: { next: number }): string {
  if (field.kind === 'value') return field.sql(alias, statementWriter(params, counter));
  if (field.kind === 'one')
    return statementWriter(params, counter).rowWhere(field.object, (child) => joinSql(spec.table, field.relation, alias, child));
  const child = `t${++counter.next}`;
  const { connection, relation } = field;
  const list = field.list ?? NEWEST_FIRST_LIST;
  const parentColumn = columnName(relation.target().table, relation.parentKey);
  const of = childPage(getTableName(relation.target().table), parentColumn, `${alias}."id"`, list, field.page, params);
  const object = (index: number, node: string) => renderedObjectSql(connection.objects[index]!, node, params, counter);
  const entries = connection.fields.map((part): [string, string] => {
    switch (part.kind) {
      case 'constant':
        return [part.key, sqlLiteral(part.json)];
      case 'totalCount':
        return [part.key, `${countSql(of, `${child}${part.key}`)}::text`];
      case 'nodes':
        return [part.key, pageRowsSql(of, `${child}n${++counter.next}`, (node) => object(part.object, node))];
      case 'edges': {
        const edge = (node: string) =>
          part.fields.map((f): [string, string] => [
            f.key,
            f.kind === 'constant' ? sqlLiteral(f.json) : f.kind === 'cursor' ? cursorSql(list, node) : object(f.object, node),
          ]);
        return [part.key, pageRowsSql(of, `${child}n${++counter.next}`, (node) => jsonObjectSql(edge(node)))];
      }
      case 'pageInfo': {
        const flag = (f: (typeof part.fields)[number]) =>
          f.kind === 'constant' ? sqlLiteral(f.json) : pageInfoSql(of, list, `${child}i${++counter.next}`, f.kind);
        return [part.key, jsonObjectSql(part.fields.map((f) => [f.key, flag(f)]))];
      }
      case 'page':
        throw new Error(`rendered page ${field.key}: ${part.key} is written from a root page only`);
    }
  });
  return field.nodesOnly ? entries[0]![1] : jsonObjectSql(entries);
}

export const sqlLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The JSON of the row `idSql` names, from the first of `objects`' tables holding it (ids are UUIDs, unique across tables); null if none.
 * With `tags` (GraphQL names, one per object), the JSON follows its object's tag, `Pool{...}`, telling which table held the row.
 */
export function renderedByIdSql(objects: readonly RenderedObject[], idSql: string, params: unknown[], tags?: readonly string[]): string {
  const rows = objects.map((object, i) => rowJsonSql(object, 'id', idSql, params, tags?.[i]));
  return rows.length === 1 ? rows[0]! : `coalesce(${rows.join(', ')})`;
}

/** `object`'s JSON (after `tag`, if any) for its row whose `column` is `keySql`. */
function rowJsonSql(object: RenderedObject, column: string, keySql: string, params: unknown[], tag?: string): string {
  const where = (n: string) => `${n}."${column}" = ${keySql}`;
  return rowSql(object, 'n', where, params, { next: 0 }, (json) => (tag ? `'${tag}' || ${json}` : json));
}

/** `object`'s JSON for its row whose unique column `property` is `keySql` (null if none). */
export function renderedByKeySql(object: RenderedObject, property: string, keySql: (type: string) => string, params: unknown[]): string {
  const column = pgColumn(object.spec.table, property);
  return rowJsonSql(object, column.name, keySql(column.getSQLType()), params);
}

/**
 * ONE statement for several root fields, each a column whose scalar subquery writes its JSON (a rendered object by key, a count): one
 * round trip and one plan, not one statement per field. The text is made once per operation plan; each run gives the slots' values.
 */
export class SharedStatement {
  private readonly columns: string[] = [];
  /** The values the plan fixes (a nested page's cursor), and a hole per slot. */
  private readonly params: unknown[] = [];
  private readonly slots: number[] = [];
  private text: string | undefined;

  /** `write` returns the column's SQL, numbering fixed parameters on `params`, per-run ones with `slot(type)` (valued by {@link run}). */
  add(write: (params: unknown[], slot: (type: string) => string) => string): void {
    if (this.text !== undefined) throw new Error('a shared statement takes no column once it has run');
    const slot = (type: string) => {
      this.slots.push(this.params.push(undefined) - 1);
      return `$${this.params.length}::${type}`;
    };
    this.columns.push(write(this.params, slot));
  }

  /** Each column's JSON text (null where its subquery found nothing), given the slots' values in order. */
  async run(query: ReadQuery, values: readonly unknown[]): Promise<Array<string | null>> {
    if (values.length !== this.slots.length) throw new Error(`${this.slots.length} values expected, got ${values.length}`);
    const params = this.params.slice();
    for (let i = 0; i < this.slots.length; i++) params[this.slots[i]!] = values[i];
    this.text ??= `SELECT ${this.columns.map((sql, i) => `${sql} AS "${i}"`).join(', ')}`;
    const [row] = await query<Record<string, string | null>>(this.text, params);
    return this.columns.map((_, i) => row![String(i)]!);
  }
}

const renderedByIds = new WeakMap<RenderedObject[], { one: string; many: string; params: unknown[] }>();

/**
 * The rendered JSON of the rows `ids` name, in order, in ONE statement, each as {@link renderedByIdSql} finds it (`tags`: type names).
 * One id is a plain uuid, not an array: Postgres' generic plan of `unnest($1)` expects a hundred rows, costs more than a custom plan
 * for one, and so is replanned every run (a refetch's whole cost).
 */
export async function readRenderedByIds(
  query: ReadQuery,
  objects: RenderedObject[],
  ids: readonly string[],
  tags: readonly string[],
): Promise<Array<string | null>> {
  let compiled = renderedByIds.get(objects);
  if (!compiled) {
    // $1 is the ids; the objects' own parameters follow.
    const params: unknown[] = [null];
    const json = renderedByIdSql(objects, 'u.id', params, tags);
    compiled = {
      one: `SELECT ${json} AS "json" FROM (SELECT $1::uuid AS id) u`,
      many: `SELECT ${json} AS "json" FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, i) ORDER BY u.i`,
      params,
    };
    renderedByIds.set(objects, compiled);
  }
  const single = ids.length === 1;
  const rows = await query<{ json: string | null }>(single ? compiled.one : compiled.many, [
    single ? ids[0] : ids,
    ...compiled.params.slice(1),
  ]);
  return rows.map((row) => row.json);
}

/**
 * `object`'s JSON for its row whose id is `idSql`, as a scalar subquery for a statement written elsewhere; null when the rendering needs
 * parameters of its own (a relation page's cursor), which that statement cannot number.
 */
export function renderedRowSql(object: RenderedObject, idSql: string): string | null {
  const params: unknown[] = [];
  const sql = rowJsonSql(object, 'id', idSql, params);
  return params.length ? null : sql;
}
