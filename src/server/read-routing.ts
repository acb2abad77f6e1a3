import type postgres from 'postgres';
import { type Database, isConnectionError, withTimeout } from '../db/client.js';
import { postgresClient } from '../db/hosts.js';
import { hasSqlState } from '../db/statement-scope.js';
import type { SharedRedis } from './redis.js';

/**
 * Why a read went where it went: `replayed` (the standby, which has replayed the caller's
 * writes), or a reason it went to the primary instead: the caller wrote something the
 * standby has not replayed yet (`recent_write`), the standby does not answer
 * (`unreachable`), is further behind than the bound allows (`lagging`), or failed during
 * the read, which then ran again on the primary (`retried`), or the read had to write, which
 * the standby refused, and it ran again on the primary (`writes`).
 */
export type ReadRoute = 'replayed' | 'recent_write' | 'unreachable' | 'lagging' | 'retried' | 'writes';

export interface ReadRoutingOptions {
  primary: Database;
  standby: Database;
  /** Connection strings of both, for the position probes (a connection of their own each, not counted in the handles' statements). */
  primaryUrl: string;
  standbyUrl: string;
  /** How far behind the primary the standby may be, in time, before reads leave it. */
  maxLagMs: number;
  /** Where the callers' write positions are kept: in Redis, shared by the replicas, when given; in this process otherwise. */
  redis?: { shared: SharedRedis; keyPrefix: string } | null;
  /** Told of every routed read (metrics); must not throw. */
  onRoute?: (route: ReadRoute) => void;
  /** Told when the standby stops or starts serving reads, once per change, with why (logs). */
  onStandbyChange?: (serving: boolean, reason: ReadRoute | null, error?: unknown) => void;
  /** How long a probed position is used before it is probed again (default 100 ms). */
  probeEveryMs?: number;
  now?: () => number;
}

/** A position in the WAL, from its text form `16/B374D848`. */
export function parseLsn(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** Longest a probe may take before the standby counts as unreachable. */
const PROBE_TIMEOUT_MS = 1000;
/** Primary positions kept while the standby has not replayed them (a standby stuck for long drops the oldest: still lagging). */
const MAX_SAMPLES = 1000;

/**
 * Which database a read runs on, when a streaming standby (DATABASE_READ_URL) serves reads.
 * Queries go to the standby unless one of these sends them to the primary:
 * - read-your-writes: after a caller's mutation, the primary's WAL position is remembered for
 *   the caller (its user and its client address), in Redis when configured so every replica
 *   honours it; its reads stay on the primary until the standby has replayed past it.
 * - the standby is unreachable, or lags more than `maxLagMs` behind the primary.
 * The check costs no statement per request: both positions are probed at most every
 * `probeEveryMs`, in the background, on connections of their own, and a request uses the
 * last probe's answer (a stale answer only sends more reads to the primary, never fewer).
 */
export class ReadRouting {
  private readonly primaryProbe: postgres.Sql;
  private readonly standbyProbe: postgres.Sql;
  private readonly marks = new Map<string, { lsn: bigint; expiresAt: number }>();
  private readonly now: () => number;
  private readonly probeEveryMs: number;
  /** How long a remembered write position matters: past it, a standby within the lag bound has replayed it anyway. */
  private readonly markTtlMs: number;
  /** Primary positions probed and when, oldest first, not yet replayed by the standby. */
  private samples: { at: number; lsn: bigint }[] = [];
  /** The standby's replayed position at its last probe; null until one answers. */
  private replayed: bigint | null = null;
  /** The standby has replayed everything the primary had written at this time. */
  private caughtUpAt = -Infinity;
  private probedAt = -Infinity;
  private probing: Promise<void> | null = null;
  private unreachable = false;
  /** The standby's health as last told to onStandbyChange. */
  private health: ReadRoute | null = null;

  constructor(private readonly options: ReadRoutingOptions) {
    this.now = options.now ?? Date.now;
    this.probeEveryMs = options.probeEveryMs ?? 100;
    this.markTtlMs = 2 * options.maxLagMs + 1000;
    this.primaryProbe = probeClient(options.primaryUrl);
    this.standbyProbe = probeClient(options.standbyUrl);
  }

  /** The first probe: reads use the standby from the start when it answers. */
  async start(): Promise<void> {
    this.probeSoon();
    await this.probing;
  }

  get primary(): Database {
    return this.options.primary;
  }

  /** The database the reads of a caller known by `principals` run on now. */
  async databaseForReads(principals: readonly string[]): Promise<Database> {
    this.probeSoon();
    const health = this.standbyHealth();
    this.noteHealth(health);
    if (health !== null) return this.route(this.options.primary, health);
    const mark = await this.latestWrite(principals);
    if (mark !== null && (this.replayed === null || this.replayed < mark)) return this.route(this.options.primary, 'recent_write');
    return this.route(this.options.standby, 'replayed');
  }

  /**
   * Why a read that failed on the standby runs again on the primary, or null when the failure
   * is the read's own: the standby failed under it (`retried`: it could not be reached, or it
   * cancelled the read for a conflict with the WAL it replays, SQLSTATE 40001), or the read
   * had to write, which a standby refuses (`writes`, SQLSTATE 25006: a leaderboard window is
   * built at its first read of a day).
   */
  rerouteReason(database: Database, error: unknown): 'retried' | 'writes' | null {
    if (database !== this.options.standby) return null;
    if (isConnectionError(error) || hasSqlState(error, RECOVERY_CONFLICT)) return 'retried';
    return hasSqlState(error, READ_ONLY_TRANSACTION) ? 'writes' : null;
  }

  /** The primary, for a read the standby could not run (`error`, which rerouteReason gave a reason for); after a failure of the standby's own, it counts as unreachable until a probe answers. */
  rerouted(error: unknown): Database {
    const reason = this.rerouteReason(this.options.standby, error) ?? 'retried';
    if (reason === 'retried') this.markUnreachable(error);
    return this.route(this.options.primary, reason);
  }

  /** After a caller's mutation: its reads stay on the primary until the standby replays what the primary has written by now. */
  async wrote(principals: readonly string[]): Promise<void> {
    let lsn: bigint;
    try {
      lsn = await this.position(this.primaryProbe, PRIMARY_POSITION);
    } catch {
      // The primary is down: the mutation failed with it, or its answer did; nothing to wait for.
      return;
    }
    const expiresAt = this.now() + this.markTtlMs;
    for (const principal of principals) {
      const known = this.marks.get(principal);
      if (!known || known.lsn < lsn) this.marks.set(principal, { lsn, expiresAt });
    }
    this.forgetExpiredMarks();
    const redis = this.options.redis;
    if (redis) {
      await redis.shared.attempt(
        (client) =>
          Promise.all(
            principals.map((principal) => client.eval(RAISE_MARK, 1, markKey(redis.keyPrefix, principal), lsn.toString(), this.markTtlMs)),
          ),
        () => [],
      );
    }
  }

  close(): Promise<void> {
    return Promise.all([this.primaryProbe.end({ timeout: 1 }), this.standbyProbe.end({ timeout: 1 })]).then(() => {});
  }

  /** null when the standby may serve reads; else why not. */
  private standbyHealth(): ReadRoute | null {
    if (this.unreachable) return 'unreachable';
    const lag = this.now() - this.caughtUpAt;
    if (lag > this.options.maxLagMs) return this.replayed === null ? 'unreachable' : 'lagging';
    return null;
  }

  private route(database: Database, route: ReadRoute): Database {
    this.options.onRoute?.(route);
    return database;
  }

  /** Tells onStandbyChange when the standby's health changes (null: it serves reads). */
  private noteHealth(health: ReadRoute | null, error?: unknown): void {
    if (health === this.health) return;
    this.health = health;
    this.options.onStandbyChange?.(health === null, health, error);
  }

  /** The highest write position remembered for any of `principals`, here or (with Redis) by any replica. */
  private async latestWrite(principals: readonly string[]): Promise<bigint | null> {
    let latest: bigint | null = null;
    const now = this.now();
    for (const principal of principals) {
      const mark = this.marks.get(principal);
      if (mark && mark.expiresAt > now && (latest === null || mark.lsn > latest)) latest = mark.lsn;
    }
    const redis = this.options.redis;
    if (!redis) return latest;
    const shared = await redis.shared.attempt(
      (client) => client.mget(principals.map((principal) => markKey(redis.keyPrefix, principal))),
      () => [],
    );
    for (const text of shared) {
      if (text === null) continue;
      const lsn = BigInt(text);
      if (latest === null || lsn > latest) latest = lsn;
    }
    return latest;
  }

  private forgetExpiredMarks(): void {
    if (this.marks.size < 10_000) return;
    const now = this.now();
    for (const [principal, mark] of this.marks) if (mark.expiresAt <= now) this.marks.delete(principal);
  }

  /** Starts a probe of both positions unless one ran within probeEveryMs or is running. */
  private probeSoon(): void {
    if (this.probing || this.now() - this.probedAt < this.probeEveryMs) return;
    this.probing = this.probe().finally(() => {
      this.probing = null;
    });
  }

  private async probe(): Promise<void> {
    const at = this.now();
    this.probedAt = at;
    let primary: bigint;
    try {
      primary = await this.position(this.primaryProbe, PRIMARY_POSITION);
    } catch {
      return; // The primary is down: reads fail there as they would without a standby.
    }
    let replayed: bigint;
    try {
      // A promoted standby (or the primary itself named as DATABASE_READ_URL) has replayed everything it has.
      replayed = await this.position(
        this.standbyProbe,
        'SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn',
      );
    } catch (error) {
      this.markUnreachable(error);
      return;
    }
    this.unreachable = false;
    this.replayed = replayed;
    this.samples.push({ at, lsn: primary });
    while (this.samples.length && this.samples[0]!.lsn <= replayed) this.caughtUpAt = this.samples.shift()!.at;
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }

  private markUnreachable(error: unknown): void {
    this.unreachable = true;
    this.noteHealth('unreachable', error);
  }

  private async position(client: postgres.Sql, text: string): Promise<bigint> {
    const rows = await withTimeout(client.unsafe<{ lsn: string | null }[]>(text), PROBE_TIMEOUT_MS);
    const lsn = rows[0]?.lsn;
    if (!lsn) throw new Error('the database reports no WAL position');
    return parseLsn(lsn);
  }
}

/**
 * The primary's position: where its WAL is inserted to, not written to. WAL not yet written
 * (a commit under synchronous_commit = off, a non-transactional record) is already past the
 * write position, and a standby must replay it too before a caller reads its write there.
 */
const PRIMARY_POSITION = 'SELECT pg_current_wal_insert_lsn()::text AS lsn';

/** The SQLSTATE of a statement a hot standby cancelled because the WAL it replays removes rows the statement may still need. */
const RECOVERY_CONFLICT = '40001';
const READ_ONLY_TRANSACTION = '25006';

/** Sets KEYS[1] to ARGV[1] (a WAL position) unless it holds a higher one, for ARGV[2] ms. */
const RAISE_MARK = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

const markKey = (keyPrefix: string, principal: string) => `${keyPrefix}:wrote:${principal}`;

function probeClient(url: string): postgres.Sql {
  return postgresClient(url, {
    max: 1,
    connect_timeout: 2,
    idle_timeout: 60,
    onnotice: () => {},
    connection: { application_name: 'poolgraph:read-routing', statement_timeout: PROBE_TIMEOUT_MS },
    fetch_types: false,
  });
}
