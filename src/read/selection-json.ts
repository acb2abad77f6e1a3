/**
 * A selection written as a JSON object field by field where the read graph does not write it (read/rendered-read.ts): a computed
 * value's by SQL, a service's values in Node. Each caller says how each field is written.
 */
import type { FieldNode, GraphQLObjectType } from 'graphql';
import { jsonObjectSql, sqlLiteral } from './nested-read.js';
import type { SelectionWalk } from './operation-walk.js';

/** By SQL: each field's JSON text from `valueSql` by its name (`__typename` the type's); null when some field has none. */
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

/** In Node, from a value the service read: each field's writer from `writerOf` (`__typename` the type's); null when some field has none. */
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
