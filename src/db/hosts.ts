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
 * DATABASE_UNAVAILABLE, retryable). Each lost connection makes it ask again, so the connections
 * opened after a switch go to the new primary without anyone telling the process. The sockets
 * it hands over shield the driver from its own faults when a connection is lost
 * ({@link forDriver}).
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

/** What a host answered it is (see HostLocator.probe). */
type HostKind = 'primary' | 'standby' | 'read-only';

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
      const error = Object.assign(new Error(`no ${this.role} among ${this.hosts.map(describe).join(', ')}`), { code: 'NO_MATCHING_HOST' });
      const socket = forDriver(new net.Socket(), error);
      // After the driver has attached its listeners.
      setImmediate(() => socket.destroy(error));
      return socket;
    }
    const socket = forDriver(net.connect(target.port, target.host));
    // A lost connection may mean the host changed role or died: the next one asks again.
    socket.once('error', () => {
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
    // What each host is: a standby (in recovery), a primary that takes writes, or one that is
    // neither: out of recovery but read-only by default. pg_auto_failover keeps a promoted
    // standby so (stop_replication) until the monitor confirms the old primary is fenced, the
    // seconds libpq's read-write skips it for; connections sent there meanwhile would have
    // their writes refused (25006, not a connection error), not retried.
    const kinds = await Promise.all(
      this.probes.map(async (probe) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
        try {
          const answered = probe<{ standby: boolean; readOnly: boolean }[]>`
            SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS "readOnly"`.then(
            ([row]) => (row!.standby ? 'standby' : row!.readOnly ? 'read-only' : 'primary') as HostKind,
            () => null,
          );
          return await Promise.race([answered, late]);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const pick = (...want: HostKind[]) => this.hosts.find((_, i) => kinds[i] !== null && want.includes(kinds[i]!)) ?? null;
    const found =
      this.role === 'primary'
        ? pick('primary')
        : this.role === 'standby'
          ? pick('standby')
          : this.role === 'prefer-standby'
            ? (pick('standby') ?? pick('primary', 'read-only'))
            : pick('standby', 'primary', 'read-only');
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
 * A socket as postgres.js gets it. postgres.js (3.4.9) batches small writes behind a
 * setImmediate, and when a socket closes it drops it (`socket = null`) and cancels that
 * immediate, but keeps the batched bytes and the spent timer. Three faults follow, and a
 * switch of the primary meets them all:
 * - a write batched just before the close (the startup message of a connection to a host that
 *   has gone or refuses it: that answer comes before the immediate) stays in the buffer with
 *   every later write of the connection, the startup messages of its next sockets included,
 *   until a kilobyte has piled up: CONNECT_TIMEOUT attempt after attempt for half a minute,
 *   then a burst the server refuses ("invalid frontend message type 0");
 * - its statement, if it was one, is never answered nor failed: its request hangs until its
 *   time budget ends;
 * - a write made after the close (the ROLLBACK postgres.js sends itself when a transaction's
 *   statement fails with its connection) goes to the dropped socket: a TypeError thrown from
 *   an immediate, which ends the process.
 * So the driver hears of a socket's end in two steps: at once an `error` (every statement on
 * it fails as a connection error, a transaction rolls back), and its `close` only once the
 * driver has stopped writing to it, two turns of the event loop without a write, when what it
 * batched has been flushed (to nowhere); the close fails whatever was still sent to it since.
 * Writes meanwhile go nowhere and fail their statements with the same error. A socket that
 * carries a CancelRequest is left as it is: the server's close is its answer.
 * `failWith`: a socket that is never connected (no host fits), destroyed with it by the caller.
 */
function forDriver(socket: net.Socket, failWith?: Error): net.Socket {
  const emit = socket.emit;
  const write = socket.write;
  /** Writes go nowhere: the socket is gone, or never went anywhere. */
  let gone = failWith !== undefined;
  /** The error the driver was told of, once it was. */
  let told: Error | null = null;
  let wrote = false;
  let written = false;
  let cancelRequest = false;
  const tell = (error: Error) => Reflect.apply(emit, socket, ['error', error]) as boolean;
  const closeWhenQuiet = () => {
    wrote = false;
    // hadError false: the driver then fails what is still waiting on the connection (with an error, it leaves that to the error).
    setImmediate(() => setImmediate(() => (wrote ? closeWhenQuiet() : Reflect.apply(emit, socket, ['close', false]))));
  };
  socket.emit = function (this: net.Socket, event: string | symbol, ...args: unknown[]) {
    if (cancelRequest || (event !== 'error' && event !== 'close')) return Reflect.apply(emit, this, [event, ...args]) as boolean;
    if (event === 'error') {
      if (told) return true;
      gone = true;
      told = args[0] as Error;
      return tell(told);
    }
    gone = true;
    // Closed without an error (the server's end): told as a lost connection all the same.
    if (!told) tell((told = Object.assign(new Error('the database connection closed'), { code: 'CONNECTION_CLOSED' })));
    closeWhenQuiet();
    return true;
  } as net.Socket['emit'];
  socket.write = function (this: net.Socket, ...args: unknown[]) {
    if (!gone) {
      if (!written) {
        written = true;
        const data = args[0];
        cancelRequest = Buffer.isBuffer(data) && data.length === 16 && data.readInt32BE(4) === CANCEL_REQUEST_CODE;
      }
      return Reflect.apply(write, this, args) as boolean;
    }
    wrote = true;
    const error = told;
    const callback = args.findLast((arg) => typeof arg === 'function') as ((error?: Error) => void) | undefined;
    process.nextTick(() => {
      if (error) tell(error);
      callback?.(error ?? failWith);
    });
    return true;
  } as net.Socket['write'];
  return socket;
}

/** The code of the protocol's CancelRequest message (after its length). */
const CANCEL_REQUEST_CODE = 80877102;

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
