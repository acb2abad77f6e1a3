/**
 * REST's floor (lib/rest-floor.ts) as a child process of bench/transports.ts, on BENCH_DB_URL
 * (migrated and seeded by the parent). It answers lib/server.ts's messages (ready, stats,
 * profile-start and -stop, stop) as a server of lib/processes.ts does.
 */
import { answerParent, countGc } from './child.js';
import { createRestFloorApp } from './rest-floor.js';

countGc();
const app = createRestFloorApp(process.env.BENCH_DB_URL!, 'poolgraph_bench_rest_floor');
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no TCP address');
answerParent({ port: address.port, viewer: null, close: () => app.close() });
