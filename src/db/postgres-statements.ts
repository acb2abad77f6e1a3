import type postgres from 'postgres';
import type { DatabaseLoad } from './load.js';
import type { StatementScope } from './statement-scope.js';

type Sql = postgres.Sql;
type Cancelable = Promise<unknown> & { cancel(): unknown };

/**
 * Wraps a postgres.js client so that every statement Drizzle starts (`unsafe`, and those
 * of transactions, `begin`) is
 * - on a client scoped to an operation's statement scope (`scoped`), registered there, so
 *   an operation past its time budget cancels it on the server (postgres.js sends a
 *   CancelRequest for its backend), and its failure names the operation's request,
 * - counted while it holds or waits for a connection, for {@link DatabaseLoad}, and
 * - counted once sent, in `statements` (tagged-template calls too, and the statements
 *   that open and close transactions and savepoints). postgres.js's own hook
 *   for this, the `debug` option, captures an `Error` stack for every statement (7-11 µs
 *   each) and makes its errors carry their parameters as enumerable properties, which a
 *   logger would then write out.
 *
 * postgres.js dispatches waiting statements first in, first out, and each top-level
 * statement or transaction holds one connection; so of the work in flight, ordered by
 * when it asked, the first `maxConnections` run and the rest wait: the oldest waiting is
 * the one at index `maxConnections`.
 */
export function trackPostgresStatements(
  client: Sql,
  maxConnections: number,
): {
  client: Sql;
  scoped(scope: StatementScope): Sql;
  /** The client's `unsafe`, its statement registered in `scope` (the read path's, which needs no proxy per operation). */
  unsafe(scope: StatementScope | null, ...args: Parameters<Sql['unsafe']>): Cancelable;
  load(now?: number): DatabaseLoad;
  readonly statements: number;
} {
  const inFlight = new Map<object, number>();
  let statements = 0;

  /**
   * `callback` for postgres.js's `begin` or `savepoint`, counting the statements around it:
   * BEGIN (or SAVEPOINT) once it runs, then COMMIT or ROLLBACK (a savepoint sends only
   * ROLLBACK TO, on failure) once it settles.
   */
  const counted = (callback: (tx: Sql) => unknown, kind: 'transaction' | 'savepoint', scope: StatementScope | null) => {
    let opened = false;
    const inside = (tx: Sql) => {
      opened = true;
      statements++;
      return callback(wrap(tx, false, scope));
    };
    const closed = <T>(work: Promise<T>): Promise<T> => {
      work.then(
        () => void (opened && kind === 'transaction' && statements++),
        () => void (opened && statements++),
      );
      return work;
    };
    return { inside, closed };
  };

  /** Counts a statement or transaction holding (or waiting for) a connection from now; returns its release. */
  const holdConnection = (): (() => void) => {
    const token = {};
    inFlight.set(token, performance.now());
    return () => void inFlight.delete(token);
  };

  const holdsConnection = <T extends PromiseLike<unknown>>(work: T): T => {
    const release = holdConnection();
    work.then(release, release);
    return work;
  };

  /**
   * A statement of `sql` (`unsafe`), counted and registered in `scope`; at the top level,
   * holding a connection. What its end settles (the scope's registration, the connection
   * it held) is one handler: each `then` on a statement costs a promise (the read path's
   * statements are most of a small request).
   */
  const unsafe = (sql: Sql, topLevel: boolean, scope: StatementScope | null, args: Parameters<Sql['unsafe']>): Cancelable => {
    scope?.throwIfCancelled();
    const query = sql.unsafe(...args) as unknown as Cancelable;
    statements++;
    const untrack = scope?.track(() => void query.cancel());
    const release = topLevel ? holdConnection() : undefined;
    if (!untrack && !release) return query;
    const settle = () => {
      untrack?.();
      release?.();
    };
    query.then(settle, (error: unknown) => {
      settle();
      scope?.claim(error);
    });
    return query;
  };

  /** `sql` counted, with `unsafe` (and `begin` at the top level) registered in `scope`, if any. */
  const wrap = (sql: Sql, topLevel: boolean, scope: StatementScope | null): Sql =>
    new Proxy(sql, {
      // A tagged-template statement, sql`...` (not a helper such as sql(identifier), which is no statement).
      apply(target, thisArg, args) {
        if (Array.isArray(args[0]) && 'raw' in args[0]) statements++;
        return Reflect.apply(target, thisArg, args);
      },
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property === 'unsafe') {
          return (...args: Parameters<Sql['unsafe']>) => unsafe(target, topLevel, scope, args);
        }
        if (property === 'begin' && topLevel) {
          return (...args: unknown[]) => {
            scope?.throwIfCancelled();
            const transaction = counted(args.pop() as (tx: Sql) => unknown, 'transaction', scope);
            return holdsConnection(
              transaction.closed((target.begin as (...a: unknown[]) => Promise<unknown>)(...args, transaction.inside)),
            );
          };
        }
        if (property === 'savepoint' && !topLevel) {
          return (...args: unknown[]) => {
            const savepoint = counted(args.pop() as (tx: Sql) => unknown, 'savepoint', scope);
            return savepoint.closed((value as (...a: unknown[]) => Promise<unknown>).call(target, ...args, savepoint.inside));
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  return {
    client: wrap(client, true, null),
    scoped: (scope) => wrap(client, true, scope),
    unsafe: (scope, ...args) => unsafe(client, true, scope, args),
    get statements() {
      return statements;
    },
    load(now = performance.now()) {
      const waiting = Math.max(0, inFlight.size - maxConnections);
      let oldestWaitMs = 0;
      if (waiting) {
        let index = 0;
        for (const askedAt of inFlight.values()) {
          if (index++ === maxConnections) {
            oldestWaitMs = now - askedAt;
            break;
          }
        }
      }
      return { capacity: maxConnections, busy: Math.min(inFlight.size, maxConnections), waiting, oldestWaitMs };
    },
  };
}
