/**
 * `npm run bench:seed`: how the demo seeder's time grows with its size. Seeds each size of
 * BENCH_SEED_SIZES (pools/users pairs, default 2500/25000 and 10000/100000) into a scratch
 * database of BENCH_DATABASE_URL's server (dropped afterwards), as `npm run db:seed` does,
 * and reports per size the wall time, this process's CPU and its Postgres backend's CPU
 * (/proc), and each size's time against the first's. BENCH_LABEL=x writes results/seed-x.json.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client.js';
import { seedDemoData } from '../src/seed/index.js';
import { backendCpu, cpuBetween } from './lib/postgres-cpu.js';

const serverUrl = process.env.BENCH_DATABASE_URL || 'postgres://root@127.0.0.1:5432/postgres';
const sizes = (process.env.BENCH_SEED_SIZES ?? '2500/25000,10000/100000').split(',').map((pair) => {
  const [pools, users] = pair.split('/').map(Number);
  if (!Number.isSafeInteger(pools) || !Number.isSafeInteger(users))
    throw new Error(`BENCH_SEED_SIZES lists pools/users pairs, got "${pair}"`);
  return { pools: pools!, users: users!, streaks: Math.max(4, Math.round((pools! * 12) / 1000)) };
});
const label = process.env.BENCH_LABEL || null;
const file = label ? fileURLToPath(new URL(`./results/seed-${label}.json`, import.meta.url)) : null;
if (file && existsSync(file) && process.env.BENCH_OVERWRITE !== '1') throw new Error(`${file} exists (BENCH_OVERWRITE=1 replaces it)`);

const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
const busy = () => os.loadavg()[0]!.toFixed(1);
const results = [];
try {
  for (const size of sizes) {
    const name = `poolgraph_seed_${randomBytes(4).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      const database = await openDatabase({ kind: 'postgres', url: url.toString(), applicationName: name, maxConnections: 1 });
      try {
        await database.migrate();
        const loadBefore = busy();
        const cpuBefore = process.cpuUsage();
        const pgBefore = (await backendCpu(admin, name)) ?? new Map();
        const started = performance.now();
        let lastStage = '';
        const summary = await seedDemoData(database, {
          ...size,
          now: new Date('2026-06-15T09:30:00.000Z'),
          onProgress: ({ stage }) => {
            if (stage !== lastStage) process.stdout.write(`${lastStage ? ', ' : ''}${(lastStage = stage)}`);
          },
        });
        const seconds = (performance.now() - started) / 1000;
        const cpu = process.cpuUsage(cpuBefore);
        const pgAfter = await backendCpu(admin, name);
        const rows = Object.entries(summary)
          .filter(([key]) => key !== 'streaks')
          .reduce((sum, [, n]) => sum + n, 0);
        const result = {
          ...size,
          rows,
          summary,
          seconds: Math.round(seconds * 10) / 10,
          nodeCpuSeconds: Math.round((cpu.user + cpu.system) / 1e5) / 10,
          postgresCpuSeconds: pgAfter ? Math.round(cpuBetween(pgBefore, pgAfter) / 100) / 10 : null,
          loadAverage: { before: loadBefore, after: busy() },
        };
        results.push(result);
        console.log(
          `\n${size.pools} pools, ${size.users} users: ${rows} rows in ${result.seconds} s ` +
            `(Node CPU ${result.nodeCpuSeconds} s, Postgres CPU ${result.postgresCpuSeconds} s; load average ${loadBefore} -> ${result.loadAverage.after})`,
        );
      } finally {
        await database.close();
      }
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }
  const [first] = results;
  for (const r of results.slice(1)) {
    console.log(
      `${r.pools}/${r.users} against ${first!.pools}/${first!.users}: ${(r.rows / first!.rows).toFixed(2)}x the rows, ` +
        `${(r.seconds / first!.seconds).toFixed(2)}x the time, ${((r.nodeCpuSeconds + (r.postgresCpuSeconds ?? 0)) / (first!.nodeCpuSeconds + (first!.postgresCpuSeconds ?? 0))).toFixed(2)}x the CPU`,
    );
  }
  if (file) {
    mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ benchmark: 'seed', date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, results }, null, 2)}\n`,
    );
    console.log(`written ${file}`);
  }
} finally {
  await admin.end();
}
