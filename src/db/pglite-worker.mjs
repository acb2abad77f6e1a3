// The embedded database's thread: one PGlite (Postgres in WebAssembly) that runs statements
// sent by src/db/pglite-client.ts, one at a time, so a slow statement blocks this thread and
// never the server's event loop.
//
// Plain JavaScript on purpose: worker threads do not inherit the TypeScript loader (tsx, or
// vitest's), so a .ts worker would need a loader bootstrapped in every thread (over a second
// each, and tests open many databases). The messages are typed in pglite-client.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { parse, PGlite, protocol } from '@electric-sql/pglite';

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

/**
 * Named prepared statements of the texts sent with `prepared` (the read path's, each text
 * one statement shape), in least recently used order: `query` parses and plans its text at
 * every call, a prepared one only binds and executes. Bounded, the oldest closed first.
 * @type {Map<string, { name: string, paramTypes: number[] }>}
 */
const prepared = new Map();
const PREPARED_LIMIT = 500;
let preparedCount = 0;

/** Runs protocol messages as PGlite's own `query` does (not synced to the file system: that follows the statement). */
const run = (/** @type {Uint8Array} */ message) => database.execProtocolStream(message, { syncToFs: false });

/** The statement of `text`, parsed and described once. */
async function statementOf(/** @type {string} */ text) {
  const known = prepared.get(text);
  if (known) {
    prepared.delete(text);
    prepared.set(text, known);
    return known;
  }
  const name = `pg_${++preparedCount}`;
  /** @type {any[]} */
  let described = [];
  try {
    await run(protocol.serialize.parse({ name, text }));
    described = await run(protocol.serialize.describe({ type: 'S', name }));
  } finally {
    await run(protocol.serialize.sync());
  }
  const statement = { name, paramTypes: parse.parseDescribeStatementResults(described) };
  prepared.set(text, statement);
  if (prepared.size > PREPARED_LIMIT) await forget(prepared.keys().next().value);
  return statement;
}

/** A query by its prepared statement: Bind, Describe (the portal's row shape), Execute, Sync. */
async function preparedQuery(/** @type {string} */ text, /** @type {unknown[]} */ params, /** @type {any} */ options) {
  try {
    return await executePrepared(text, params, options);
  } catch (error) {
    // A migration changed what the statement returns ("cached plan must not change result type"): prepared anew.
    if (/** @type {any} */ (error)?.code !== '0A000' || !prepared.has(text)) throw error;
    await forget(text);
    return executePrepared(text, params, options);
  }
}

async function forget(/** @type {string} */ text) {
  const statement = prepared.get(text);
  if (!statement) return;
  prepared.delete(text);
  await run(protocol.serialize.close({ type: 'S', name: statement.name }));
  await run(protocol.serialize.sync());
}

async function executePrepared(/** @type {string} */ text, /** @type {unknown[]} */ params, /** @type {any} */ options) {
  return database.runExclusive(async () => {
    const { name, paramTypes } = await statementOf(text);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = database.serializers[paramTypes[i]];
      return serialize ? serialize(value) : String(value);
    });
    /** @type {any[]} */
    const messages = [];
    try {
      messages.push(...(await run(protocol.serialize.bind({ statement: name, values }))));
      messages.push(...(await run(protocol.serialize.describe({ type: 'P' }))));
      messages.push(...(await run(protocol.serialize.execute({}))));
    } finally {
      messages.push(...(await run(protocol.serialize.sync())));
    }
    await database.syncToFs();
    return parse.parseResults(messages, database.parsers, options)[0];
  });
}

port.on('message', async (/** @type {any} */ message) => {
  try {
    let result;
    if (message.op === 'query') {
      const parsers = Object.fromEntries(message.textTypes.map((/** @type {number} */ oid) => [oid, keepText]));
      const options = { rowMode: message.rowMode, parsers };
      const { rows, affectedRows, fields } = message.prepared
        ? await preparedQuery(message.sql, message.params, options)
        : await database.query(message.sql, message.params, options);
      result = { rows, affectedRows, fields };
    } else if (message.op === 'exec') {
      result = (await database.exec(message.sql)).map(({ rows, affectedRows, fields }) => ({ rows, affectedRows, fields }));
    } else if (message.op === 'dump') {
      writeFileSync(message.file, Buffer.from(await (await database.dumpDataDir('none')).arrayBuffer()));
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
