/**
 * Where a bench's figures go, the same for every bench: without BENCH_LABEL,
 * results/latest/<name>.json (not committed); with one, results/<name>-<label>.json, never
 * replacing a file already there unless BENCH_OVERWRITE=1.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

/** The file of a run's figures; throws at once (before anything is measured) where a labelled one exists. */
export function resultsFile(name: string, label: string | null): string {
  if (!label) return `${RESULTS_DIR}latest/${name}.json`;
  const file = `${RESULTS_DIR}${name}-${label}.json`;
  if (existsSync(file) && process.env.BENCH_OVERWRITE !== '1')
    throw new Error(`${file} exists: choose another BENCH_LABEL, or set BENCH_OVERWRITE=1 to replace it`);
  return file;
}

/** Writes `report` to `file` (its directory made) and says where. */
export function writeResults(file: string, report: object): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written ${file}`);
}

/** The machine a run was made on, as each report records it. */
export const machineFacts = () => ({ cpus: os.cpus().length, model: os.cpus()[0]?.model, loadAverage: os.loadavg() });
