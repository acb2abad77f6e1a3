import type postgres from 'postgres';
import type { DatabaseLoad } from './load.js';
import { currentStatementScope } from './statement-scope.js';

type Sql = postgres.Sql;
type Cancelable = Promise<unknown> & { cancel(): unknown };

/**
 * Wraps a postgres.js client so that every statement Drizzle starts (`unsafe`, and those
 * of transactions, `begin`) is
 * - registered in the current statement scope, so a request past its time budget cancels
 *   it on the server (postgres.js sends a CancelRequest for its backend), and
 * - counted while it holds or waits for a connection, for {@link DatabaseLoad}.
 *
 * postgres.js dispatches waiting statements first in, first out, and each top-level
 * statement or transaction holds one connection; so of the work in flight, ordered by
 * when it asked, the first `maxConnections` run and the rest wait: the oldest waiting is
 * the one at index `maxConnections`.
 */
export function trackPostgresStatements(client: Sql, maxConnections: number): { client: Sql; load(now?: number): DatabaseLoad } {
  const inFlight = new Map<object, number>();

  const holdsConnection = <T extends PromiseLike<unknown>>(work: T): T => {
    const token = {};
    inFlight.set(token, performance.now());
    const release = () => inFlight.delete(token);
    work.then(release, release);
    return work;
  };

  const cancelWithScope = <T extends Cancelable>(query: T): T => {
    const scope = currentStatementScope();
    if (!scope) return query;
    const untrack = scope.track(() => void query.cancel());
    query.then(untrack, untrack);
    return query;
  };

  /** `sql` with `unsafe` registered in the scope; with `begin` too at the top level. */
  const wrap = (sql: Sql, topLevel: boolean): Sql =>
    new Proxy(sql, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property === 'unsafe') {
          return (...args: Parameters<Sql['unsafe']>) => {
            currentStatementScope()?.throwIfCancelled();
            const query = cancelWithScope(target.unsafe(...args) as unknown as Cancelable);
            return topLevel ? holdsConnection(query) : query;
          };
        }
        if (property === 'begin' && topLevel) {
          return (...args: unknown[]) => {
            currentStatementScope()?.throwIfCancelled();
            const callback = args.pop() as (tx: Sql) => unknown;
            return holdsConnection((target.begin as (...a: unknown[]) => Promise<unknown>)(...args, (tx: Sql) => callback(wrap(tx, false))));
          };
        }
        if (property === 'savepoint' && !topLevel) {
          return (...args: unknown[]) => {
            const callback = args.pop() as (tx: Sql) => unknown;
            return (value as (...a: unknown[]) => Promise<unknown>).call(target, ...args, (tx: Sql) => callback(wrap(tx, false)));
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  return {
    client: wrap(client, true),
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
