import { randomUUID } from 'node:crypto';
import type { SharedRedis } from './redis.js';

/** A place held under a cap; `release` gives it back (once: later calls do nothing). */
export interface CapLease {
  release(): void;
}

/** Things open at once per key (WebSockets, subscriptions per client address), at most `limit`. */
export interface ConnectionCap {
  readonly limit: number;
  /** A place for `key`, or null when `limit` places are held already. */
  acquire(key: string): Promise<CapLease | null>;
}

/** Makes the cap of one kind of connection; `name` keeps kinds apart in a shared store. */
export type ConnectionCapFactory = (name: string, limit: number) => ConnectionCap;

/** The places held by this process, per key. */
class HeldPlaces {
  private readonly counts = new Map<string, number>();

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Counts one more place for `key`; the lease gives it back. */
  hold(key: string, onRelease?: () => void): CapLease {
    this.counts.set(key, this.count(key) + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        const next = this.count(key) - 1;
        if (next > 0) this.counts.set(key, next);
        else this.counts.delete(key);
        onRelease?.();
      },
    };
  }
}

/** A cap counted in this process's memory: the embedded default, and the fallback while Redis is down. */
export class MemoryCap implements ConnectionCap {
  private readonly held = new HeldPlaces();

  constructor(readonly limit: number) {}

  async acquire(key: string): Promise<CapLease | null> {
    return this.held.count(key) >= this.limit ? null : this.held.hold(key);
  }
}

export const memoryCaps: ConnectionCapFactory = (_name, limit) => new MemoryCap(limit);

/**
 * How long a place in Redis lasts unless the replica holding it renews it: a replica that is
 * killed cannot release its places, and they are freed this long after its last renewal.
 */
const LEASE_MS = 60_000;
const RENEW_EVERY_MS = LEASE_MS / 3;

/**
 * Takes a place in the sorted set KEYS[1] (members: held places, scores: when each expires,
 * by Redis's clock) unless ARGV[1] places are held: 1 when taken, 0 when full. Expired
 * places (of killed replicas) are dropped first.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** Moves the expiry of place ARGV[2] in KEYS[1] ARGV[1] ms past now, if it is still there. */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

interface CapScripts {
  acquireCapPlace(key: string, limit: number, leaseMs: number, member: string): Promise<number>;
  renewCapPlace(key: string, leaseMs: number, member: string): Promise<number>;
}

/**
 * Caps counted across every replica in Redis: each open connection is a member of a sorted
 * set per key, renewed while it is open and removed when it closes; a replica that dies
 * stops renewing, so its places expire within a minute. While Redis is unreachable each
 * process counts its own connections (all it holds, those placed in Redis included) against
 * the cap in memory, as the rate limits do; the outage is logged once by {@link SharedRedis}.
 */
export function redisCaps(redis: SharedRedis, keyPrefix: string): { caps: ConnectionCapFactory; close(): void } {
  redis.client.defineCommand('acquireCapPlace', { numberOfKeys: 1, lua: ACQUIRE });
  redis.client.defineCommand('renewCapPlace', { numberOfKeys: 1, lua: RENEW });
  const scripts = redis.client as unknown as CapScripts;
  const replicaId = randomUUID();
  let sequence = 0;
  // Places this process holds in Redis, renewed together.
  const placed = new Map<string, { key: string; member: string }>();
  const renewal = setInterval(() => {
    if (placed.size === 0) return;
    void redis.attempt(
      () => Promise.all([...placed.values()].map(({ key, member }) => scripts.renewCapPlace(key, LEASE_MS, member))),
      () => [],
    );
  }, RENEW_EVERY_MS);
  renewal.unref();

  const caps: ConnectionCapFactory = (name, limit) => {
    const held = new HeldPlaces();
    return {
      limit,
      async acquire(key) {
        const redisKey = `${keyPrefix}:cap:${name}:${key}`;
        const member = `${replicaId}:${++sequence}`;
        const taken = await redis.attempt(
          async () => (await scripts.acquireCapPlace(redisKey, limit, LEASE_MS, member)) === 1,
          () => null,
        );
        if (taken === false) return null;
        if (taken === null) return held.count(key) >= limit ? null : held.hold(key);
        placed.set(member, { key: redisKey, member });
        return held.hold(key, () => {
          placed.delete(member);
          // Not removed while Redis is down: the place expires with its lease instead.
          void redis.attempt(
            (client) => client.zrem(redisKey, member),
            () => 0,
          );
        });
      },
    };
  };
  return { caps, close: () => clearInterval(renewal) };
}
