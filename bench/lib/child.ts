/**
 * A bench server's side of its parent's messages (lib/processes.ts, serverProcess): its
 * stats (CPU, memory, GC since start), a V8 profile of the measured window, and stop; every
 * bench server answers them the same way (lib/server.ts, lib/rest-floor-server.ts).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import type { ChildMessage, ParentMessage, ViewerSession } from './server.js';

export interface ParentAnswers {
  port: number;
  viewer: ViewerSession | null;
  /** Closes the server and what it opened, before the process exits. */
  close(): Promise<void>;
  /** PGlite: gives the server's own database the viewer's session row (a server without one never gets the message). */
  adoptSession?(session: ViewerSession): Promise<void>;
}

let gcMs = 0;
let gcCount = 0;

/** Counts the process's GC time from now (call it first thing, so start-up's collections count as before). */
export function countGc(): void {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      gcCount++;
    }
  }).observe({ entryTypes: ['gc'] });
}

/** Answers the parent's messages, and tells it the server is ready. */
export function answerParent(answers: ParentAnswers): void {
  if (!process.send) throw new Error('a bench server runs as a child of a bench (IPC channel needed)');
  const send = (message: ChildMessage) => process.send!(message);
  let profiler: Session | undefined;
  const handle = async (message: ParentMessage): Promise<void> => {
    if (message.type === 'stats') {
      const memory = process.memoryUsage();
      send({ type: 'stats', cpu: process.cpuUsage(), rss: memory.rss, heapUsed: memory.heapUsed, gcMs, gcCount });
    } else if (message.type === 'profile-start') {
      // The V8 sampling profiler over the measured window only (no start-up, no warm-up),
      // at --cpu-prof's default interval of 1 ms.
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
    } else if (message.type === 'adopt-session' && answers.adoptSession) {
      await answers.adoptSession(message.session);
      send({ type: 'session-adopted' });
    } else if (message.type === 'stop') {
      await answers.close();
      send({ type: 'stopped' });
      // A normal exit, so --cpu-prof writes its profile.
      process.exit(0);
    }
  };
  // A failed step ends the bench server, saying why, instead of leaving the parent waiting.
  process.on('message', (message: ParentMessage) => {
    handle(message).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  });
  // The parent going away (crash, Ctrl-C) takes this process with it.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', port: answers.port, viewer: answers.viewer });
}
