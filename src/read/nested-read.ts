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
 * (Over 300 lines: the one compiler of a read's SQL.)
 *
 * One statement per read subtree (as PostGraphile plans one): a list's rows, each written as its response JSON, with a correlated
 * subquery per relation writing its JSON in place, so nested relations cost one round trip and Node never decodes their rows.
 * The text depends on the plan's shape alone (values are parameters), so equal shapes share one prepared statement.
 */

/** How a type is read: its table, the relations a plan may follow, and its token amounts. */
export interface ObjectSpec {
  table: PgTable;
  relations: Record<string, RelationSpec>;
  /** Relations private to the row's owner (and admins): rendered only where the row is known to be the viewer's (read/rendered-read.ts). */
  owned?: Record<string, RelationSpec>;
  /**
   * SQL-computed fields: given the definition, merged selection nodes and walk (GraphQL's, opaque here), the SQL of the field's JSON
   * over the row's alias, or null when that selection does not render (the resolver answers it).
   */
  computed?: Record<string, (definition: any, nodes: readonly any[], walk: any) => ValueSql | null>;
  /**
   * The viewer's own `target` row: `parentKey` is the parent's id, `viewerKey` the viewer's user id (properties; null if none or
   * signed out; GraphQL fields are the target module's). The viewer is bound at each run (db/statement-scope.ts, VIEWER_USER_ID),
   * so one plan serves every viewer.
   */
  viewerRows?: Record<string, { target: () => ObjectSpec; parentKey: string; viewerKey: string }>;
  /** Whole-token fields, to their description: each the base-units column of the same property, scaled by the row's `decimals`. */
  amounts?: Record<string, string>;
  /** SQL of the amounts' decimals over the row's alias, for a table without a `decimals` column of its own. */
  amountDecimals?: (alias: string) => string;
}

/** `description`: the GraphQL field's, where the read graph makes the field (modules/common/read-graph-fields.ts). */
export type RelationSpec =
  /**
   * At most one row: the child whose `childKey` equals the parent's `parentKey` (properties); with `through`, the `parentKey` of
   * the row that relation finds (a prediction's streak is its pool's).
   */
  | { kind: 'one'; target: () => ObjectSpec; parentKey: string; childKey: string; through?: OneRelationSpec; description?: string }
  /**
   * A newest-first page of children whose `parentKey` (a property) is the parent's id. `plain`: the arguments ask for that page alone
   * (no filter or other order); else `listed` gives their list and page (throws on bad arguments; `now` is what lifecycle filters
   * compare with), or the resolver answers the field.
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
export type PageRelationSpec = Extract<RelationSpec, { kind: 'page' }>;

export const columnName = (table: PgTable, property: string): string => pgColumn(table, property).name;

/** A one-to-one relation's join; a `through` key is read by a scalar subquery (an index lookup, as the relation itself is). */
function joinSql(parent: PgTable, relation: OneRelationSpec, parentAlias: string, child: string): string {
  const childKey = `${child}."${columnName(relation.target().table, relation.childKey)}"`;
  const { through } = relation;
  if (!through) return `${childKey} = ${parentAlias}."${columnName(parent, relation.parentKey)}"`;
  const via = through.target().table;
  const viaAlias = `${child}v`;
  return `${childKey} = (SELECT ${viaAlias}."${columnName(via, relation.parentKey)}" FROM "${getTableName(via)}" ${viaAlias} WHERE ${joinSql(parent, through, parentAlias, viaAlias)})`;
}

const parentColumnOf = (relation: PageRelationSpec) => columnName(relation.target().table, relation.parentKey);

/**
 * A row the statement writes as its response JSON, byte for byte as JSON.stringify would: the response keys in order, each a value
 * (SQL over the row's alias), a one-to-one relation, or a relation's page with its connection's fields. What renders how is decided
 * GraphQL-side (read/rendered-read.ts); this side only writes the SQL.
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
      relation: PageRelationSpec;
      page: PagePosition;
      connection: RenderedConnection;
      nodesOnly?: boolean;
      list?: ChildList;
    };

/** The SQL of a value's JSON text over its row's alias, written into a statement through `statement`. */
export type ValueSql = (alias: string, statement: StatementWriter) => string;

/** What the SQL of a value may add to the statement it is written into. */
export interface StatementWriter {
  /** The placeholder of a parameter of SQL type `type` (a marker such as VIEWER_USER_ID is bound at each run: db/statement-scope.ts). */
  param(value: unknown, type: string): string;
  /** `object`'s JSON for the row `where` (SQL over the row's alias) finds, as a scalar subquery; `null` where none does. */
  rowWhere(object: RenderedObject, where: (alias: string) => string): string;
  /** The JSON array of `object`'s JSON for every row `where` finds, in `order` (SQL over the row's alias); `[]` where none does. */
  rowsWhere(object: RenderedObject, where: (alias: string) => string, order: (alias: string) => string): string;
}

/**
 * A connection's selection: its distinct node selections (`nodes`, `edges { node }`) as objects, and parts in response order naming
 * them by index. A root connection's parts are written in Node (read/rendered-read.ts, writeConnection); a nested page's by its statement.
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
  /** A field of the page beyond the Relay ones (the leaderboard's viewerEntry), written in Node from the page: root connections only. */
  | { key: string; kind: 'page'; write: (page: unknown) => string };

/** A value known when planning (`__typename`), as its JSON text. */
type Constant = { key: string; kind: 'constant'; json: string };

export type PageInfoFlag = 'hasNextPage' | 'hasPreviousPage' | 'startCursor' | 'endCursor';

/** The most keys one rendered object may have: concat() takes at most 100 arguments, two per key and the closing brace. */
export const MAX_RENDERED_KEYS = 49;

/**
 * The select list writing `objects`' JSON over `alias` as `"$j0"`, `"$j1"`, ... (the caller writes FROM onward). Kept with the objects
 * (a plan lives per operation and variables, read-renderer.ts) so a request neither rebuilds the text (a twentieth of a rendered read's
 * Node time) nor hashes a new string to find its prepared statement; only when `params` starts empty, as its parameters are numbered.
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

/** The names of the columns of {@link renderedTextColumn}, made once: a row's texts are read by them at every row of every page. */
const TEXT_COLUMNS = Array.from({ length: MAX_RENDERED_KEYS }, (_, i) => `$j${i}`);

/** The column {@link renderedSelect}'s list writes the `index`th object's JSON text in. */
export const renderedTextColumn = (index: number) => TEXT_COLUMNS[index] ?? `$j${index}`;

/** The JSON texts a row of {@link renderedSelect}'s list holds, in the objects' order. */
export function renderedTexts(row: Record<string, unknown>, count: number): string[] {
  const texts: string[] = [];
  for (let i = 0; i < count; i++) texts.push(row[renderedTextColumn(i)] as string);
  return texts;
}

/** The one row of a one-to-one relation, as `row` writes it (null when there is none). */
function oneSql(parent: PgTable, spec: OneRelationSpec, target: ObjectSpec, parentAlias: string, child: string, row: () => string): string {
  return `(SELECT ${row()} FROM "${getTableName(target.table)}" ${child} WHERE ${joinSql(parent, spec, parentAlias, child)})`;
}

/** The page as a JSON array of what `row` writes per child, in the list's order (a backward page is read backwards, turned back here). */
function pageRowsSql(of: ChildPage, child: string, row: (child: string) => string): string {
  const from = childRowsSql(of, child, of.page.size);
  return `(SELECT ${jsonArraySql(row(child), orderBySql(of, child, false))} FROM ${from})`;
}

/** A JSON array of the rows' `json` (each row's JSON text) in `orderBy`, with bare commas as JSON.stringify joins them; `[]` for none. */
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
 * A child's cursor as JSON text, encodeCursor's bytes (modules/common/pagination.ts): unpadded base64url of
 * `["<list's name>","<key>","<id>"]`, none needing escapes (constants, timestamps, integers). translate() drops the line breaks
 * Postgres' base64 writes every 76 characters.
 */
function cursorSql(list: ChildList, alias: string): string {
  const json = `concat('["${list.name}","', ${list.cursorKey(alias)}, '","', ${alias}."id", '"]')`;
  return `'"' || rtrim(translate(encode(convert_to(${json}, 'UTF8'), 'base64'), E'+/\\n', '-_'), '=') || '"'`;
}

/** Written by concatenation: json_build_object's `"key" : value` spacing and `, ` separators are not the bytes JSON.stringify writes. */
function renderedObjectSql(object: RenderedObject, alias: string, params: unknown[], counter: { next: number }): string {
  return jsonObjectSql(object.fields.map((field) => [field.key, renderedFieldSql(object.spec, field, alias, params, counter)]));
}

function statementWriter(params: unknown[], counter: { next: number }): StatementWriter {
  return {
    param: paramOf(params),
    rowWhere: (object, where) => {
      const row = `t${++counter.next}`;
      const json = renderedObjectSql(object, row, params, counter);
      return `coalesce((SELECT ${json} FROM "${getTableName(object.spec.table)}" ${row} WHERE ${where(row)}), 'null')`;
    },
    rowsWhere: (object, where, order) => {
      const row = `t${++counter.next}`;
      const json = renderedObjectSql(object, row, params, counter);
      return `(SELECT ${jsonArraySql(json, order(row))} FROM "${getTableName(object.spec.table)}" ${row} WHERE ${where(row)})`;
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
  const child = `t${++counter.next}`;
  if (field.kind === 'one') {
    const { relation } = field;
    return `coalesce(${oneSql(spec.table, relation, relation.target(), alias, child, () => renderedObjectSql(field.object, child, params, counter))}, 'null')`;
  }
  const { connection, relation } = field;
  const list = field.list ?? NEWEST_FIRST_LIST;
  const of = childPage(getTableName(relation.target().table), parentColumnOf(relation), `${alias}."id"`, list, field.page, params);
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

const renderedByIds = new WeakMap<RenderedObject[], { one: string; many: string; params: unknown[] }>();

/**
 * The JSON of the row `idSql` names, from the first of `objects`' tables holding it (ids are UUIDs, unique across tables); null if none.
 * With `tags` (GraphQL names, one per object), the JSON follows its object's tag, `Pool{...}`, telling which table held the row.
 */
export function renderedByIdSql(objects: readonly RenderedObject[], idSql: string, params: unknown[], tags?: readonly string[]): string {
  const rows = objects.map((object, i) => rowJsonSql(object, 'id', idSql, params, tags?.[i]));
  return rows.length === 1 ? rows[0]! : `coalesce(${rows.join(', ')})`;
}

/** The scalar subquery writing `object`'s JSON (after `tag`, if any) for its row whose `columnName` is `keySql`. */
function rowJsonSql(object: RenderedObject, columnName: string, keySql: string, params: unknown[], tag?: string): string {
  const json = renderedObjectSql(object, 'n', params, { next: 0 });
  return `(SELECT ${tag ? `'${tag}' || ` : ''}${json} FROM "${getTableName(object.spec.table)}" n WHERE n."${columnName}" = ${keySql})`;
}

/** The scalar subquery writing `object`'s JSON for its row whose unique column `property` is `keySql` (null if none). */
export function renderedByKeySql(object: RenderedObject, property: string, keySql: (type: string) => string, params: unknown[]): string {
  const column = pgColumn(object.spec.table, property);
  return rowJsonSql(object, column.name, keySql(column.getSQLType()), params);
}

/**
 * A row read beside a statement and the condition its columns need (a signed-in request's session, open and the token's): `g` is the
 * row, `holds` decides. Its text is made once per statement; `values` are this run's.
 */
export interface StatementGuard<Row> {
  /** The row's query (at most one row) and the condition on it (on `g`), numbering their parameters with `param(type)`. */
  write(param: (type: string) => string): { row: string; holds: string };
  values: readonly unknown[];
  /** Not a value: the type of the row, which {@link SharedStatement.run} returns. */
  readonly row?: Row;
}

/**
 * ONE statement for several root fields, each a column whose scalar subquery writes its JSON (a rendered object by key, a count): one
 * round trip and one plan, not one statement per field. The text is made once per operation plan; each run gives the slots' values.
 */
export class SharedStatement {
  private readonly columns: string[] = [];
  /** The parameters: the values the plan fixes (a nested page's cursor), and a hole per slot. */
  private readonly params: unknown[] = [];
  private readonly slots: number[] = [];
  private text: string | null = null;
  /** The text under a guard, by the guard's writer (one per kind of guard), and where the guard's parameters start. */
  private readonly guarded = new Map<StatementGuard<unknown>['write'], { text: string; firstParam: number }>();

  /** `write` returns the column's SQL, numbering fixed parameters on `params`, per-run ones with `slot(type)` (valued by {@link run}). */
  add(write: (params: unknown[], slot: (type: string) => string) => string): void {
    if (this.text !== null || this.guarded.size) throw new Error('a shared statement takes no column once it has run');
    const slot = (type: string) => {
      this.params.push(undefined);
      this.slots.push(this.params.length - 1);
      return `$${this.params.length}::${type}`;
    };
    this.columns.push(write(this.params, slot));
  }

  /**
   * Each column's JSON text (null where its subquery found nothing), given the slots' values in order. With a `guard`, also its row
   * (all null when it found none, by the left join), and the columns are computed only where the guard holds (null otherwise).
   */
  async run<Row = never>(
    query: ReadQuery,
    values: readonly unknown[],
    guard?: StatementGuard<Row>,
  ): Promise<{ columns: Array<string | null>; guardRow?: Row }> {
    if (values.length !== this.slots.length) throw new Error(`${this.slots.length} values expected, got ${values.length}`);
    const params = this.params.slice();
    for (let i = 0; i < this.slots.length; i++) params[this.slots[i]!] = values[i];
    if (!guard) {
      this.text ??= `SELECT ${this.columns.map((sql, i) => `${sql} AS "${i}"`).join(', ')}`;
      const [row] = await query<Record<string, string | null>>(this.text, params);
      return { columns: this.columns.map((_, i) => row![String(i)]!) };
    }
    const { text, firstParam } = this.guardedText(guard.write);
    params.length = firstParam;
    params.push(...guard.values);
    const [row] = await query<Record<string, string | null>>(text, params);
    const columns = this.columns.map((_, i) => row![String(i)]!);
    // The guard's columns keep the row's own names; ours are numbered.
    const guardRow = Object.fromEntries(Object.entries(row!).filter(([name]) => !/^\d+$/.test(name))) as Row;
    return { columns, guardRow };
  }

  private guardedText(write: StatementGuard<unknown>['write']): { text: string; firstParam: number } {
    let guarded = this.guarded.get(write);
    if (!guarded) {
      const firstParam = this.params.length;
      let next = firstParam;
      const { row, holds } = write((type) => `$${++next}::${type}`);
      const columns = this.columns.map((sql, i) => `CASE WHEN ${holds} THEN ${sql} END AS "${i}"`);
      const text = `SELECT g.*, ${columns.join(', ')} FROM (SELECT 1) one LEFT JOIN LATERAL (${row}) g ON true`;
      this.guarded.set(write, (guarded = { text, firstParam }));
    }
    return guarded;
  }
}

/**
 * The rendered JSON of the rows `ids` name, in order, in ONE statement, each as {@link renderedByIdSql} finds it (`tags`: type names).
 * The text depends on `objects` alone; ids are a parameter. One id is a plain uuid, not an array: Postgres' generic plan of `unnest($1)`
 * expects a hundred rows, costs more than a custom plan for one, and so is replanned every run (a refetch's whole cost, in the bench).
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
