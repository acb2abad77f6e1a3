/**
 * `npm run bench:seed`: how the demo seeder's time grows with its size. Seeds each size of
 * BENCH_SEED_SIZES (pools/users pairs, default 2500/25000 and 10000/100000) into a scratch
 * database of BENCH_DATABASE_URL's server (dropped afterwards), as `npm run db:seed` does,
 * BENCH_SEED_ROUNDS times (default 2; the sizes alternate within each round, so a busy
 * spell of a shared machine falls on both), and reports per run the wall time, where it
 * went (making the rows in memory, writing them, indexes and constraints, statistics and
 * derived tables), this process's CPU, its Postgres backend's CPU (/proc) and the load
 * average; then per size the median, and each size's median against the first's.
 * BENCH_LABEL=x writes results/seed-x.json.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client.js';
import { seedDemoData, type SeedSummary } from '../src/seed/index.js';
import { backendCpu, cpuBetween } from './lib/postgres-cpu.js';

const serverUrl = process.env.BENCH_DATABASE_URL || 'postgres://root@127.0.0.1:5432/postgres';
const sizes = (process.env.BENCH_SEED_SIZES ?? '2500/25000,10000/100000').split(',').map((pair) => {
  const [pools, users] = pair.split('/').map(Number);
  if (!Number.isSafeInteger(pools) || !Number.isSafeInteger(users))
    throw new Error(`BENCH_SEED_SIZES lists pools/users pairs, got "${pair}"`);
  return { pools: pools!, users: users!, streaks: Math.max(4, Math.round((pools! * 12) / 1000)) };
});
const rounds = Number(process.env.BENCH_SEED_ROUNDS ?? 2);
if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`BENCH_SEED_ROUNDS takes a positive whole number, got "${rounds}"`);
const label = process.env.BENCH_LABEL || null;
const file = label ? fileURLToPath(new URL(`./results/seed-${label}.json`, import.meta.url)) : null;
if (file && existsSync(file) && process.env.BENCH_OVERWRITE !== '1') throw new Error(`${file} exists (BENCH_OVERWRITE=1 replaces it)`);

/** The seeder's progress stages, grouped into the phases a run reports (the rest is writing rows). */
const PHASES: Record<string, string> = {
  indexes: 'indexes',
  statistics: 'derived',
  'derived tables': 'derived',
  'foreign keys': 'indexes',
};
const phaseOf = (stage: string) => (stage.startsWith('making ') ? 'making' : (PHASES[stage] ?? 'writing'));
const round1 = (n: number) => Math.round(n * 10) / 10;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
interface Run {
  round: number;
  pools: number;
  users: number;
  streaks: number;
  rows: number;
  summary: SeedSummary;
  seconds: number;
  phases: Record<string, number>;
  nodeCpuSeconds: number;
  postgresCpuSeconds: number | null;
  loadAverage: { before: string; after: string };
}
const results: Run[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const size of sizes) {
      const name = `poolgraph_seed_${randomBytes(4).toString('hex')}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      try {
        const url = new URL(serverUrl);
        url.pathname = `/${name}`;
        const database = await openDatabase({ kind: 'postgres', url: url.toString(), applicationName: name, maxConnections: 1 });
        try {
          await database.migrate();
          const loadBefore = load();
          const cpuBefore = process.cpuUsage();
          const pgBefore = (await backendCpu(admin, name)) ?? new Map();
          const started = performance.now();
          const phases: Record<string, number> = { making: 0, writing: 0, indexes: 0, derived: 0 };
          let last = started;
          process.stdout.write(`round ${round}, ${size.pools} pools, ${size.users} users:`);
          const summary = await seedDemoData(database, {
            ...size,
            now: new Date('2026-06-15T09:30:00.000Z'),
            // Time since the last report goes to the stage reported (each stage reports at its end).
            onProgress: ({ stage }) => {
              const at = performance.now();
              const phase = phaseOf(stage);
              phases[phase] = (phases[phase] ?? 0) + (at - last);
              last = at;
            },
          });
          const seconds = (performance.now() - started) / 1000;
          const cpu = process.cpuUsage(cpuBefore);
          const pgAfter = await backendCpu(admin, name);
          // Rows of every table but streaks, as the figures in bench/README.md count them.
          const rows = Object.entries(summary)
            .filter(([table]) => table !== 'streaks')
            .reduce((sum, [, n]) => sum + n, 0);
          const result: Run = {
            round,
            ...size,
            rows,
            summary,
            seconds: round1(seconds),
            phases: Object.fromEntries(Object.entries(phases).map(([phase, ms]) => [phase, round1(ms / 1000)])),
            nodeCpuSeconds: round1((cpu.user + cpu.system) / 1e6),
            postgresCpuSeconds: pgAfter ? round1(cpuBetween(pgBefore, pgAfter) / 1000) : null,
            loadAverage: { before: loadBefore, after: load() },
          };
          results.push(result);
          console.log(
            ` ${rows} rows in ${result.seconds} s (${Object.entries(result.phases)
              .map(([phase, s]) => `${phase} ${s}`)
              .join(', ')}; Node CPU ${result.nodeCpuSeconds} s, Postgres CPU ${result.postgresCpuSeconds} s; ` +
              `load average ${loadBefore} -> ${result.loadAverage.after})`,
          );
        } finally {
          await database.close();
        }
      } finally {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    }
  }
  const medians = sizes.map((size) => {
    const runs = results.filter((r) => r.pools === size.pools && r.users === size.users);
    return {
      ...size,
      rows: runs[0]!.rows,
      runs: runs.map((r) => r.seconds),
      seconds: round1(median(runs.map((r) => r.seconds))),
      cpuSeconds: round1(median(runs.map((r) => r.nodeCpuSeconds + (r.postgresCpuSeconds ?? 0)))),
    };
  });
  const [first] = medians;
  for (const m of medians) {
    console.log(
      `${m.pools}/${m.users}: median ${m.seconds} s of ${m.runs.join(', ')} s` +
        (m === first
          ? ''
          : `; against ${first!.pools}/${first!.users}: ${(m.rows / first!.rows).toFixed(2)}x the rows, ` +
            `${(m.seconds / first!.seconds).toFixed(2)}x the time, ${(m.cpuSeconds / first!.cpuSeconds).toFixed(2)}x the CPU`),
    );
  }
  if (file) {
    mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ benchmark: 'seed', date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, results, medians }, null, 2)}\n`,
    );
    console.log(`written ${file}`);
  }
} finally {
  await admin.end();
}
