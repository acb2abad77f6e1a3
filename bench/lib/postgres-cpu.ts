import { readFileSync } from 'node:fs';
import type postgres from 'postgres';

/**
 * CPU time of the Postgres backends serving one client (by `application_name`), read from
 * /proc/<pid>/stat of each backend (utime + stime). The database runs on this machine, so
 * its backends' counters are readable; pg_stat_statements would need a server restart
 * (shared_preload_libraries), and it counts only execution, not parse/bind or sending.
 *
 * A snapshot maps each backend pid to its CPU milliseconds; the difference of two
 * snapshots counts a backend that started in between from zero (its start-up included)
 * and loses one that ended (the pools keep their connections during a round).
 */
export type CpuSnapshot = Map<number, number>;

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

export async function backendCpu(admin: postgres.Sql, applicationName: string): Promise<CpuSnapshot | null> {
  const rows = await admin<Array<{ pid: number }>>`select pid from pg_stat_activity where application_name = ${applicationName}`;
  const snapshot: CpuSnapshot = new Map();
  for (const { pid } of rows) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      snapshot.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
    } catch {
      return null; // not Linux, or the database runs elsewhere
    }
  }
  return snapshot;
}

/** CPU milliseconds the backends spent between two snapshots. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
