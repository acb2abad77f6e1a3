import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackPostgresStatements } from '../../src/db/postgres-statements.js';
import { backends, createTestDatabase } from '../support/harness.js';

/**
 * The statement counter of Postgres handles (`Database.statementCount`, the metric
 * poolgraph_database_statements_total and every statement-count test) counts in the
 * wrapper, not with postgres.js's `debug` hook. The hook is the oracle here: it is called by
 * the driver for every statement it sends, so both must agree, statement by statement.
 */
describe.skipIf(!backends.includes('postgres'))('statements counted by the Postgres wrapper', () => {
  let drop: () => Promise<void>;
  let client: postgres.Sql;
  let sent = 0;
  let tracking: ReturnType<typeof trackPostgresStatements>;

  beforeAll(async () => {
    const test = await createTestDatabase('postgres');
    await test.database.close();
    drop = test.drop;
    client = postgres(test.url!, { max: 2, onnotice: () => {}, fetch_types: false, debug: () => void sent++ });
    tracking = trackPostgresStatements(client, 2);
  });
  afterAll(async () => {
    await client.end({ timeout: 5 });
    await drop();
  });

  /** What `work` sent, as the driver and as the wrapper counted it. */
  const counts = async (work: () => Promise<unknown>) => {
    const [sentBefore, countedBefore] = [sent, tracking.statements];
    await work().catch(() => {});
    return { sent: sent - sentBefore, counted: tracking.statements - countedBefore };
  };
  const db = () => drizzle(tracking.client);

  it('counts plain statements, prepared ones and tagged templates', async () => {
    expect(await counts(() => db().execute(sql`select 1`))).toEqual({ sent: 1, counted: 1 });
    expect(await counts(() => tracking.client.unsafe('select $1::int', [2], { prepare: true }))).toEqual({ sent: 1, counted: 1 });
    expect(await counts(() => tracking.client`select ${'x'}::text`)).toEqual({ sent: 1, counted: 1 });
    // A helper call builds a fragment, not a statement.
    expect(await counts(() => tracking.client`select 1 as ${tracking.client('one')}`)).toEqual({ sent: 1, counted: 1 });
  });

  it('counts a transaction with its BEGIN and COMMIT, or its ROLLBACK when it fails', async () => {
    const committed = () =>
      db().transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.execute(sql`select 2`);
      });
    expect(await counts(committed)).toEqual({ sent: 4, counted: 4 });
    const failed = () =>
      db().transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.execute(sql`select * from no_such_table`);
      });
    expect(await counts(failed)).toEqual({ sent: 4, counted: 4 });
  });

  it('counts a savepoint with its SAVEPOINT, and ROLLBACK TO when it fails', async () => {
    const nested = () =>
      db().transaction(async (tx) => {
        await tx.transaction(async (inner) => {
          await inner.execute(sql`select 1`);
        });
        await tx
          .transaction(async (inner) => {
            await inner.execute(sql`select * from no_such_table`);
          })
          .catch(() => {});
      });
    const { sent: driver, counted } = await counts(nested);
    expect(counted).toBe(driver);
    // BEGIN, SAVEPOINT, select, SAVEPOINT, failing select, ROLLBACK TO, COMMIT (postgres.js
    // releases no savepoint).
    expect(counted).toBe(7);
  });
});
