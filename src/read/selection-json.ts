/**
 * A selection written as a JSON object field by field, where the read graph does not write
 * it (read/rendered-read.ts): a computed value's object by SQL, or an object of values a
 * service read, in Node. Each caller says how each of its fields is written.
 */
import type { FieldNode, GraphQLObjectType } from 'graphql';
import { jsonObjectSql, sqlLiteral } from './nested-read.js';
import type { SelectionWalk } from './operation-walk.js';

/**
 * A selection of `type` written as a JSON object by SQL: each field's JSON text from
 * `valueSql` by its name (`__typename` the type's), or null when some field has none.
 */
export function selectionSql(
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
  valueSql: (name: string, nodes: FieldNode[]) => string | null | undefined,
): string | null {
  const entries: Array<[string, string]> = [];
  for (const [key, fieldNodes] of walk.fieldsOf(type, nodes)) {
    const name = fieldNodes[0]!.name.value;
    const sql = name === '__typename' ? sqlLiteral(JSON.stringify(type.name)) : valueSql(name, fieldNodes);
    if (sql == null) return null;
    entries.push([key, sql]);
  }
  return jsonObjectSql(entries);
}

/**
 * A selection of `type` written as a JSON object in Node from a value the service read: each
 * field's writer from `writerOf` by its name (`__typename` the type's), or null when some
 * field has none (the executor answers then).
 */
export function selectionWriter<T>(
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
  writerOf: (name: string, nodes: FieldNode[]) => ((value: T) => string) | null | undefined,
): ((value: T) => string) | null {
  const parts: Array<{ head: string; json: (value: T) => string }> = [];
  const typename = JSON.stringify(type.name);
  for (const [key, fieldNodes] of walk.fieldsOf(type, nodes)) {
    const name = fieldNodes[0]!.name.value;
    const json = name === '__typename' ? () => typename : writerOf(name, fieldNodes);
    if (!json) return null;
    parts.push({ head: `${parts.length ? ',' : '{'}${JSON.stringify(key)}:`, json });
  }
  if (!parts.length) return () => '{}';
  return (value) => {
    let out = '';
    for (const part of parts) out += part.head + part.json(value);
    return `${out}}`;
  };
}
