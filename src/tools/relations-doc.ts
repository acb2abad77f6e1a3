/**
 * docs/api.md's table of the read graph's relations, generated from the graph
 * (src/modules/common/read-specs.ts): `npm run docs:relations` writes it between its markers;
 * test/unit/relations-doc.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { columnName, type ObjectSpec, type RelationSpec } from '../read/nested-read.js';
import { READ_GRAPH, typeNameOf } from '../modules/common/read-specs.js';

export const API_DOC_PATH = fileURLToPath(new URL('../../docs/api.md', import.meta.url));
export const RELATIONS_START = '<!-- relations: generated from src/modules/common/read-specs.ts by `npm run docs:relations` -->';
export const RELATIONS_END = '<!-- relations: end -->';

/** How a relation joins, in the tables' column names: `child = parent`, or a page's parent column. */
function joinOf(parent: ObjectSpec, relation: RelationSpec): string {
  const target = relation.target();
  const child = `${typeNameOf(target)}.${columnName(target.table, relation.kind === 'one' ? relation.childKey : relation.parentKey)}`;
  if (relation.kind === 'page') return `${child} = ${typeNameOf(parent)}.id, newest first`;
  if (!relation.through) return `${child} = ${typeNameOf(parent)}.${columnName(parent.table, relation.parentKey)}`;
  const via = relation.through.target();
  return `${child} = ${typeNameOf(via)}.${columnName(via.table, relation.parentKey)}, through ${joinOf(parent, relation.through)}`;
}

/** The relations' table: one row per relation of the graph, public then owned, types in the graph's order. */
export function renderRelationsTable(): string {
  const rows = Object.entries(READ_GRAPH).flatMap(([type, spec]) =>
    [
      ...Object.entries(spec.relations).map(([field, relation]) => ({ field, relation, owned: false })),
      ...Object.entries(spec.owned ?? {}).map(([field, relation]) => ({ field, relation, owned: true })),
    ].map(
      ({ field, relation, owned }) =>
        `| ${type} | \`${field}\` | ${relation.kind === 'one' ? 'one' : 'page'}${owned ? ' (the owner only)' : ''} | ${typeNameOf(relation.target())} | ${joinOf(spec, relation)} |`,
    ),
  );
  return [RELATIONS_START, '', '| type | field | kind | of type | joined on |', '|---|---|---|---|---|', ...rows, '', RELATIONS_END].join(
    '\n',
  );
}

/** docs/api.md with its relations' table as the graph has it. */
export function apiDocWithRelations(text: string): string {
  const start = text.indexOf(RELATIONS_START);
  const end = text.indexOf(RELATIONS_END);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no relations' table between ${RELATIONS_START} and ${RELATIONS_END}`);
  return text.slice(0, start) + renderRelationsTable() + text.slice(end + RELATIONS_END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(API_DOC_PATH, apiDocWithRelations(readFileSync(API_DOC_PATH, 'utf8')));
  console.log(`Wrote the relations' table of ${API_DOC_PATH}`);
}
