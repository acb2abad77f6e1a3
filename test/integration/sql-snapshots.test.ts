import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Database, ReadQuery } from '../../src/db/client.js';
import type { StatementScope } from '../../src/db/statement-scope.js';
import { createApp } from '../../src/server/app.js';
import { startTestApp, type TestApp, testConfig } from '../support/harness.js';
import { type SignedIn, signInAs } from '../support/sessions.js';
import { SHAPES, VIEWER_CHOICE_SQL } from '../../bench/lib/query.js';

/**
 * The statements of every page of the bench corpus (bench/lib/query.ts), kept as `.sql`
 * files in sql-snapshots/ beside this test: a change to the read compiler shows as a diff
 * of the SQL it writes, reviewed with the change. The texts depend on the pages' shapes
 * alone (values are parameters), so the data they run on does not matter. After an
 * intended change, `npx vitest run test/integration/sql-snapshots.test.ts -u` writes them again.
 */

/** Breaks a statement's text before each subquery, FROM, WHERE and ORDER BY, indented by its subquery depth, outside quotes. */
export function layoutSql(text: string): string {
  let out = '';
  let depth = 0;
  const opened: boolean[] = [];
  let quote: string | null = null;
  const breakLine = (extra = 0) => {
    out = out.trimEnd() + '\n' + '  '.repeat(depth + extra);
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      out += ch;
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
      continue;
    }
    const rest = text.slice(i, i + 10);
    if (ch === '(') {
      const subquery = /^\(SELECT\b/.test(rest);
      opened.push(subquery);
      if (subquery) {
        depth++;
        breakLine();
      }
      out += ch;
      continue;
    }
    if (ch === ')') {
      if (opened.pop()) depth--;
      out += ch;
      continue;
    }
    const keyword = /^ (FROM|WHERE|ORDER BY|LIMIT) /.exec(rest);
    if (keyword && depth >= 0) {
      breakLine(1);
      out += keyword[1];
      i += keyword[1]!.length;
      continue;
    }
    out += ch;
  }
  return `${out.trim()}\n`;
}

/** The pages whose statement returns a row per record: lists of pools or streaks each holding a nested list, and the leaderboard. */
const ROWS_EACH = new Set([
  'CREATION_DATE',
  'VOLUME_HIGH',
  'DEEP_OFFSET',
  'DEEP_KEYSET',
  'DEEP_CREATOR_OFFSET',
  'STREAKS',
  'LEADERBOARD',
  'LEADERBOARD_MONTH',
]);

describe('the SQL of the bench corpus', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let viewer: SignedIn;
  const texts: string[] = [];
  const rowCounts: number[] = [];
  beforeAll(async () => {
    t = await startTestApp('pglite');
    const [chosen] = await t.database.query<{ user_id: string }>(VIEWER_CHOICE_SQL, []);
    viewer = await signInAs(t, chosen!.user_id);
    // The handle with its read statements recorded: its scoped views read through the handle they come from.
    const query = t.database.query;
    const recording: ReadQuery = async <T>(text: string, params: readonly unknown[], scope?: StatementScope) => {
      texts.push(text);
      const rows = await query<T>(text, params, scope);
      rowCounts.push(rows.length);
      return rows;
    };
    app = await createApp({ config: testConfig(), database: Object.create(t.database, { query: { value: recording } }) as Database });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it.each(SHAPES.filter((shape) => shape.name !== 'typename').map((shape) => [shape.name, shape] as const))('%s', async (name, shape) => {
    let variables: Record<string, unknown> | undefined;
    if (shape.discover) {
      const found = await t.gql(shape.discover.query);
      expect(found.errors, JSON.stringify(found.errors)).toBeUndefined();
      variables = shape.discover.variables(found.data, 1)[0];
    }
    const headers = shape.signedIn ? viewer.headers : {};
    const ask = () => app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: shape.query, variables } });
    // The page as it is read again and again: a first read of a node learns its id's type
    // (nodeTypeHints, kept by the process, so another suite in this worker may have taught it).
    await ask();
    texts.length = 0;
    rowCounts.length = 0;
    const response = await ask();
    expect(response.json().errors, response.body).toBeUndefined();
    expect(texts).toHaveLength(1);
    // The statement writes the whole page: one row reaches Node, however many the page holds;
    // but where each row holds a list (read/rendered-read.ts, pageRendering), and the
    // leaderboard's, whose entries Node writes from the service's ranked rows.
    if (!ROWS_EACH.has(name)) expect(rowCounts).toEqual([1]);
    await expect(layoutSql(texts[0]!)).toMatchFileSnapshot(`./sql-snapshots/${name}.sql`);
  });
});
