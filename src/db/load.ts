/**
 * How busy a database's connections are, for load shedding and metrics: `busy` of
 * `capacity` connections (PGlite: its one worker) are running statements, `waiting` more
 * wait for one, the longest for `oldestWaitMs`.
 */
export interface DatabaseLoad {
  capacity: number;
  busy: number;
  waiting: number;
  oldestWaitMs: number;
}
