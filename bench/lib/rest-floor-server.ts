/**
 * REST's floor (lib/rest-floor.ts) as a child process of bench/transports.ts, on BENCH_DB_URL
 * (migrated and seeded by the parent). It answers lib/server.ts's messages (ready, stats,
 * profile-start and -stop, stop) as a server of lib/processes.ts does.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { createRestFloorApp } from './rest-floor.js';
import type { ChildMessage, ParentMessage } from './server.js';

if (!process.send) throw new Error('lib/rest-floor-server.ts runs as a child of bench/transports.ts (IPC channel needed)');
const send = (message: ChildMessage) => process.send!(message);

let gcMs = 0;
let gcCount = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    gcCount++;
  }
}).observe({ entryTypes: ['gc'] });

const app = createRestFloorApp(process.env.BENCH_DB_URL!, 'poolgraph_bench_rest_floor');
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no TCP address');

let profiler: Session | undefined;
async function handle(message: ParentMessage): Promise<void> {
  if (message.type === 'stats') {
    const memory = process.memoryUsage();
    send({ type: 'stats', cpu: process.cpuUsage(), rss: memory.rss, heapUsed: memory.heapUsed, gcMs, gcCount });
  } else if (message.type === 'profile-start') {
    profiler ??= new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 1000 });
    await profiler.post('Profiler.start');
    send({ type: 'profile-started' });
  } else if (message.type === 'profile-stop' && profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    writeFileSync(message.file, JSON.stringify(profile));
    send({ type: 'profile-written' });
  } else if (message.type === 'stop') {
    await app.close();
    send({ type: 'stopped' });
    process.exit(0);
  }
}
process.on('message', (message: ParentMessage) => {
  handle(message).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', port: address.port, viewer: null });
