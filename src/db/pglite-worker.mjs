// The embedded database's thread: one PGlite (Postgres in WebAssembly) that runs statements
// sent by src/db/pglite-client.ts, one at a time, so a slow statement blocks this thread and
// never the server's event loop.
//
// Plain JavaScript on purpose: worker threads do not inherit the TypeScript loader (tsx, or
// vitest's), so a .ts worker would need a loader bootstrapped in every thread (over a second
// each, and tests open many databases). The messages are typed in pglite-client.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** @type {{ dataDir: string | undefined, loadDataDir: string | undefined }} */
const { dataDir, loadDataDir } = workerData;
const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/** Keeps a column's text as it came (what Drizzle asks for dates, intervals and numeric arrays). */
const keepText = (/** @type {string} */ value) => value;

/**
 * The error's message and its own plain fields (code, detail, constraint ...): only strings,
 * numbers and booleans, since anything else may not survive cloning, and a reply that cannot
 * be posted would end this thread.
 */
function describe(/** @type {any} */ error) {
  /** @type {Record<string, string | number | boolean>} */
  const fields = {};
  for (const [key, value] of Object.entries(error ?? {})) {
    if (['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { name: error?.name ?? 'Error', message: String(error?.message ?? error), fields };
}

let database;
try {
  database = await PGlite.create(dataDir, loadDataDir ? { loadDataDir: new Blob([readFileSync(loadDataDir)]) } : {});
  // The first statement of a fresh instance is slow (cold code); it must not count against
  // the statement timeout of the first real one, above all after a restart.
  await database.query('select 1');
  port.postMessage({ type: 'ready' });
} catch (error) {
  port.postMessage({ type: 'failed', error: describe(error) });
}

port.on('message', async (/** @type {any} */ message) => {
  try {
    let result;
    if (message.op === 'query') {
      const parsers = Object.fromEntries(message.textTypes.map((/** @type {number} */ oid) => [oid, keepText]));
      const { rows, affectedRows, fields } = await database.query(message.sql, message.params, { rowMode: message.rowMode, parsers });
      result = { rows, affectedRows, fields };
    } else if (message.op === 'exec') {
      result = (await database.exec(message.sql)).map(({ rows, affectedRows, fields }) => ({ rows, affectedRows, fields }));
    } else if (message.op === 'dump') {
      writeFileSync(message.file, Buffer.from(await (await database.dumpDataDir('gzip')).arrayBuffer()));
      result = null;
    } else if (message.op === 'close') {
      await database.close();
      result = null;
    } else {
      throw new Error(`unknown operation ${message.op}`);
    }
    port.postMessage({ id: message.id, ok: true, result });
  } catch (error) {
    port.postMessage({ id: message.id, ok: false, error: describe(error) });
  }
});
