import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { urlOfDatabase } from '../support/harness.js';

const JOURNAL = JSON.parse(readFileSync(new URL('../../schema/migrations/meta/_journal.json', import.meta.url), 'utf8')) as {
  entries: unknown[];
};

describe.runIf(process.env.TEST_DATABASE_URL)('singletons of a cluster, on Postgres', () => {
  const name = `poolgraph_test_singletons_${randomBytes(4).toString('hex')}`;
  let admin: postgres.Sql;
  let replicas: Database[] = [];

  beforeAll(async () => {
    admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    replicas = await Promise.all(
      [1, 2, 3, 4].map((n) => openDatabase({ kind: 'postgres', url: urlOfDatabase(name), applicationName: `replica-${n}` })),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('4 replicas migrating an empty database at once: none fails, each migration is applied once', async () => {
    const outcomes = await Promise.allSettled(replicas.map((replica) => replica.migrate()));
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
    const applied = await replicas[0]!.rows<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(applied[0]!.n).toBe(JOURNAL.entries.length);
  });

  it('a singleton runs in one replica at a time; the others wait, then run after it', async () => {
    const log: string[] = [];
    await Promise.all(
      replicas.map((replica, n) =>
        replica.singleton('seed', async () => {
          log.push(`start ${n}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
          log.push(`end ${n}`);
        }),
      ),
    );
    expect(log).toHaveLength(8);
    for (let i = 0; i < 8; i += 2) expect(log[i + 1]).toBe(log[i]!.replace('start', 'end'));
  });
});
