import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_DOC_PATH, apiDocWithRelations, renderRelationsTable } from '../../src/tools/relations-doc.js';
import { POOL_READ, PREDICTION_READ } from '../../src/modules/common/read-specs.js';

describe("docs/api.md's relations", () => {
  it("are the read graph's, row for row (npm run docs:relations writes them)", () => {
    const text = readFileSync(API_DOC_PATH, 'utf8');
    expect(text).toBe(apiDocWithRelations(text));
  });

  it("name every relation of the graph, a prediction's streak (through its pool) too", () => {
    const table = renderRelationsTable();
    for (const field of Object.keys(POOL_READ.relations)) expect(table).toContain(`| Pool | \`${field}\` |`);
    expect(Object.keys(PREDICTION_READ.relations)).toContain('streak');
    expect(table).toContain('| Prediction | `streak` | one | Streak | Streak.id = Pool.streak_id, through Pool.id = Prediction.pool_id |');
  });
});
