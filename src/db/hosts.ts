import net from 'node:net';
import postgres from 'postgres';

/**
 * Connection strings that name several hosts, a primary and its standby under a failover
 * system (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`), and the
 * connections made from them.
 *
 * postgres.js parses such strings, but as of 3.4 its own host selection does not do what
 * libpq does: `read-write` takes a hot standby of Postgres 14+ for a primary (it checks
 * `default_transaction_read_only` alone, which a standby reports `off`), and while no host
 * is what is asked for (the minutes of a switch) a connection cycles through the hosts at
 * full speed and its query never fails. So every connection of such a string goes through a
 * {@link HostLocator} instead: it asks each host what it is, keeps the answer, and hands the
 * driver a socket to the host that fits, or one that fails at once (the request then gets
 * DATABASE_UNAVAILABLE, retryable). Each closed socket makes it ask again, so the connections
 * opened after a switch go to the new primary without anyone telling the process.
 */

export interface HostPort {
  host: string;
  port: number;
}

/** What a connection wants of its host, from `target_session_attrs` (libpq's names). */
export type TargetRole = 'primary' | 'standby' | 'prefer-standby' | 'any';

const ROLES: Record<string, TargetRole> = {
  'read-write': 'primary',
  primary: 'primary',
  'read-only': 'standby',
  standby: 'standby',
  'prefer-standby': 'prefer-standby',
  any: 'any',
};

/** The host list of a connection string: one entry for an ordinary one. */
export function connectionHosts(url: string): HostPort[] {
  const authority = url.slice(url.indexOf('://') + 3).split(/[/?]/)[0]!;
  const hosts = decodeURIComponent(authority.slice(authority.lastIndexOf('@') + 1));
  return hosts.split(',').map((entry) => {
    const bracketed = /^\[(.*)\](?::(\d+))?$/.exec(entry);
    if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 5432) };
    const [host, port] = entry.split(':');
    return { host: host || 'localhost', port: Number(port || 5432) };
  });
}

/** The role a connection string asks for (`target_session_attrs`; libpq's default `any`), or null when the value is not one. */
export function targetRole(url: string): TargetRole | null {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const value = new URLSearchParams(query).get('target_session_attrs');
  return value === null ? 'any' : (ROLES[value] ?? null);
}

const describe = (host: HostPort) => (host.host.includes(':') ? `[${host.host}]:${host.port}` : `${host.host}:${host.port}`);

/** A change of the host a locator connects to: `to` null while no host fits. */
export interface HostChange {
  role: TargetRole;
  from: string | null;
  to: string | null;
}

/** Told of every locator's changes (logs, metrics); set by whoever reports them. */
const changeListeners = new Set<(change: HostChange) => void>();

export function onHostChange(listener: (change: HostChange) => void): () => void {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
}

/** Every locator of the process, one per host list and role: the connections of a string share what it learnt. */
const locators = new Map<string, HostLocator>();

/** The hosts the process connects to now, by role, and how often each role changed host (metrics). */
export function hostTargets(): { role: TargetRole; hosts: string[]; current: string | null; changes: number }[] {
  return [...locators.values()].map((l) => ({ role: l.role, hosts: l.hosts.map(describe), current: l.currentHost, changes: l.changes }));
}

/** How long a "no host fits" answer stands before the hosts are asked again: a burst of requests asks once. */
const NONE_FITS_FOR_MS = 250;

/**
 * Finds, among the hosts of one connection string, the one to connect to. The answer is
 * kept until a socket to it closes, then found again at the next connection.
 */
export class HostLocator {
  private target: HostPort | null = null;
  private fresh = false;
  private noneUntil = 0;
  private probing: Promise<HostPort | null> | null = null;
  private readonly probes: postgres.Sql[];
  private lastFound: string | null = null;
  changes = 0;

  constructor(
    readonly hosts: HostPort[],
    readonly role: TargetRole,
    private readonly connection: { user: string; password: string; database: string; connectTimeoutSeconds: number },
  ) {
    // One connection per host, kept while it is used, to ask it what it is.
    this.probes = hosts.map((host) =>
      postgres({
        host: host.host,
        port: host.port,
        user: connection.user || undefined,
        pass: connection.password || undefined,
        database: connection.database || undefined,
        max: 1,
        idle_timeout: 10,
        connect_timeout: connection.connectTimeoutSeconds,
        backoff: () => 0,
        onnotice: () => {},
        fetch_types: false,
        connection: { application_name: 'poolgraph:locate', statement_timeout: connection.connectTimeoutSeconds * 1000 },
      }),
    );
  }

  get currentHost(): string | null {
    return this.target && describe(this.target);
  }

  /** A socket for the driver (postgres.js `socket`): to the host that fits, or one that fails with NO_MATCHING_HOST. */
  async socket(): Promise<net.Socket> {
    const target = await this.locate();
    if (!target) {
      const socket = new net.Socket();
      const error = Object.assign(new Error(`no ${this.role} among ${this.hosts.map(describe).join(', ')}`), { code: 'NO_MATCHING_HOST' });
      // After the driver has attached its listeners.
      setImmediate(() => socket.destroy(error));
      return socket;
    }
    const socket = net.connect(target.port, target.host);
    // A closed connection may mean the host changed role or died: the next one asks again.
    socket.once('close', () => {
      if (this.target === target) this.fresh = false;
    });
    return socket;
  }

  private locate(): Promise<HostPort | null> {
    if (this.target && this.fresh) return Promise.resolve(this.target);
    if (!this.target && Date.now() < this.noneUntil) return Promise.resolve(null);
    return (this.probing ??= this.probe().finally(() => (this.probing = null)));
  }

  private async probe(): Promise<HostPort | null> {
    const timeoutMs = this.connection.connectTimeoutSeconds * 1000;
    const standby = await Promise.all(
      this.probes.map(async (probe) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
        try {
          const answered = probe<{ standby: boolean }[]>`SELECT pg_is_in_recovery() AS standby`.then(
            (rows) => rows[0]!.standby,
            () => null,
          );
          return await Promise.race([answered, late]);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const pick = (want: boolean) => this.hosts.find((_, i) => standby[i] === want) ?? null;
    const found =
      this.role === 'primary'
        ? pick(false)
        : this.role === 'standby'
          ? pick(true)
          : this.role === 'prefer-standby'
            ? (pick(true) ?? pick(false))
            : (this.hosts.find((_, i) => standby[i] !== null) ?? null);
    const before = this.currentHost;
    // The same object while the host is the same: sockets compare it to know whether theirs is still the target.
    if (!found || !this.target || describe(found) !== before) this.target = found;
    this.fresh = found !== null;
    if (!found) this.noneUntil = Date.now() + NONE_FITS_FOR_MS;
    const after = this.currentHost;
    if (after !== before) {
      // A switch: a host found that is not the one found before (a gap with none between counts once).
      if (after !== null && this.lastFound !== null && after !== this.lastFound) this.changes++;
      this.lastFound = after ?? this.lastFound;
      for (const listener of changeListeners) listener({ role: this.role, from: before, to: after });
    }
    return this.target;
  }

  async close(): Promise<void> {
    await Promise.all(this.probes.map((probe) => probe.end({ timeout: 1 })));
  }
}

/**
 * A postgres.js client for `url`: as the driver makes it for a string with one host; for one
 * with several, connecting through the process's {@link HostLocator} of its hosts and role.
 * Reconnection backs off briefly (at most half a second): the driver's default grows to 20 s
 * after a minute of failures, which would keep a replica away from a new primary that long.
 */
export function postgresClient(url: string, options: postgres.Options<{}>): postgres.Sql {
  const hosts = connectionHosts(url);
  const backoff = (attempt: number) => Math.min(0.05 * attempt, 0.5);
  if (hosts.length < 2) return postgres(url, { backoff, ...options });
  const role = targetRole(url) ?? 'any';
  const parsed = new URL(url.replace(/\/\/([^/?]*@)?[^/?]*/, (_, auth = '') => `//${auth}${describe(hosts[0]!)}`));
  parsed.searchParams.delete('target_session_attrs');
  const key = `${hosts.map(describe).join(',')} ${role} ${parsed.username} ${parsed.pathname}`;
  let locator = locators.get(key);
  if (!locator) {
    locator = new HostLocator(hosts, role, {
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database: decodeURIComponent(parsed.pathname.slice(1)),
      connectTimeoutSeconds: Number(options.connect_timeout ?? 3),
    });
    locators.set(key, locator);
  }
  const found = locator;
  return postgres(parsed.toString(), { backoff, ...options, socket: () => found.socket() } as postgres.Options<{}>);
}
