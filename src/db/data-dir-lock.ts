import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';

/**
 * An exclusive lock on a data directory (the embedded chain's, PGlite's), taken before
 * anything in it is read or written, so a second process on the same directory fails at
 * once instead of rewriting state under the first.
 *
 * The lock is a file beside the directory (`<dir>.lock`) created with O_EXCL, holding the
 * owner's pid and its start time. It dies with its process: a lock whose process is gone,
 * or whose pid now belongs to a later process, is stale and taken over. Node has no flock;
 * this is the portable equivalent.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly directory: string,
    readonly ownerPid: number,
  ) {
    super(
      `The data directory ${directory} is in use by process ${ownerPid}. ` +
        'Stop that process first, or give this one other data directories (PGLITE_DATA_DIR, CHAIN_DATA_DIR).',
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file (if it is still this process's). Idempotent. */
  release(): void;
}

interface Owner {
  pid: number;
  host: string;
  /** Start time of the process (Linux /proc ticks); tells a reused pid from the owner. */
  started: string | null;
}

const held = new Map<string, string>();
let exitHookInstalled = false;

/** Takes the lock of `directory`; throws DataDirLockedError when another live process holds it. */
export function lockDataDir(directory: string): DataDirLock {
  const path = `${resolve(directory)}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), started: startTimeOf(process.pid) } satisfies Owner);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (publish(path, mine)) {
      held.set(path, mine);
      installExitHook();
      return { path, release: () => release(path, mine) };
    }
    const current = readOrNull(path);
    if (current === null) continue;
    const owner = parseOwner(current);
    if (owner && isAlive(owner, path)) throw new DataDirLockedError(resolve(directory), owner.pid);
    removeStale(path, current);
  }
  throw new Error(`Could not take the lock ${path}: it keeps changing hands`);
}

/** Creates `path` holding `text`, atomically (a complete file or none); false when it exists. */
function publish(path: string, text: string): boolean {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, text, { flag: 'wx' });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

/** Moves a stale lock aside; if it changed hands meanwhile (a live owner), puts it back. */
function removeStale(path: string, staleText: string): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  if (readOrNull(aside) !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone else took the lock meanwhile; theirs stands.
    }
  }
  unlinkSync(aside);
}

function isAlive(owner: Owner, path: string): boolean {
  if (owner.host !== hostname()) return true; // another machine's process cannot be checked: assume alive
  if (owner.pid === process.pid) return held.has(path);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const started = startTimeOf(owner.pid);
  return owner.started === null || started === null || started === owner.started;
}

function release(path: string, mine: string): void {
  if (held.get(path) !== mine) return;
  held.delete(path);
  if (readOrNull(path) === mine) unlinkSync(path);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [path, mine] of held) {
      try {
        release(path, mine);
      } catch {
        // exiting anyway; a lock left behind is stale once this process is gone
      }
    }
  });
}

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); null off Linux. */
function startTimeOf(pid: number): string | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (stat === null) return null;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

function parseOwner(text: string): Owner | null {
  try {
    const owner = JSON.parse(text) as Owner;
    return Number.isInteger(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
