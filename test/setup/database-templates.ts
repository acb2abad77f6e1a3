import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { type Database, openDatabase } from '../../src/db/client.js';
import { seedDemoData, type SeedSummary, TEST_SIZE } from '../../src/seed/index.js';

/**
 * vitest globalSetup: the starting databases of the integration suites, made once per run.
 * A fresh PGlite spends most of its start in initdb (about ten seconds of CPU on this
 * machine's class, more than its suite's tests), and every suite also migrated and most
 * seeded the TEST_SIZE demo data. Here that happens once: PGlite's files are dumped to a
 * tarball each suite's database loads (`loadDataDir`), and on Postgres (TEST_DATABASE_URL)
 * a template database each suite's database is created from. Each suite still gets its own
 * database; only the way there is shorter. Nothing to set up by hand: `npm test` does it.
 */
export interface DatabaseTemplates {
  /** Tarballs of a migrated PGlite database: empty, and with TEST_SIZE demo data. */
  pglite: BackendTemplates;
  /** Template databases on the server of TEST_DATABASE_URL (null without it). */
  postgres: BackendTemplates | null;
}

export interface BackendTemplates {
  /** Migrated, no rows. */
  empty: string;
  /** Migrated and seeded with TEST_SIZE demo data. */
  demo: string;
  /** What the demo seeder wrote into `demo`. */
  demoSummary: SeedSummary;
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
  }
}

async function pgliteTemplates(dir: string): Promise<BackendTemplates> {
  const database = await openDatabase({ kind: 'pglite' });
  try {
    await database.migrate();
    const empty = join(dir, 'empty.tgz');
    await database.dumpDataDir!(empty);
    const summary = await seedDemoData(database, TEST_SIZE);
    const demo = join(dir, 'demo.tgz');
    await database.dumpDataDir!(demo);
    return { empty, demo, demoSummary: summary };
  } finally {
    await database.close();
  }
}

/** A migrated database on the Postgres server, closed again (CREATE DATABASE ... TEMPLATE needs it unconnected). */
async function postgresTemplate(admin: postgres.Sql, name: string, fill: (database: Database) => Promise<void>): Promise<string> {
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), applicationName: name, maxConnections: 1 });
  try {
    await database.migrate();
    await fill(database);
  } finally {
    await database.close();
  }
  return name;
}

async function postgresTemplates(admin: postgres.Sql, prefix: string): Promise<BackendTemplates> {
  const empty = await postgresTemplate(admin, `${prefix}_empty`, async () => {});
  let demoSummary!: SeedSummary;
  const demo = await postgresTemplate(admin, `${prefix}_demo`, async (database) => {
    demoSummary = await seedDemoData(database, TEST_SIZE);
  });
  return { empty, demo, demoSummary };
}

/** Said at the start and again at the end of a run without Postgres, so skipped suites are never a surprise. */
const POSTGRES_SKIPPED =
  'TEST_DATABASE_URL is unset: the integration suites run on PGlite only, and their Postgres runs are skipped. ' +
  'Set it to run them too, e.g. TEST_DATABASE_URL=postgres://root@127.0.0.1:5432/test npm test';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!process.env.TEST_DATABASE_URL) console.log(POSTGRES_SKIPPED);
  const dir = mkdtempSync(join(tmpdir(), 'poolgraph-templates-'));
  const admin = process.env.TEST_DATABASE_URL ? postgres(process.env.TEST_DATABASE_URL, { max: 1, onnotice: () => {} }) : null;
  const prefix = `poolgraph_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  const [pglite, postgresNames] = await Promise.all([pgliteTemplates(dir), admin ? postgresTemplates(admin, prefix) : null]);
  project.provide('databaseTemplates', { pglite, postgres: postgresNames });
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (!admin) {
      console.log(POSTGRES_SKIPPED);
      return;
    }
    for (const name of [postgresNames?.empty, postgresNames?.demo].filter(Boolean))
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
}
