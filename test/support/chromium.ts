import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

/** Debian's Chromium, when installed (.ci/run installs it); browser tests skip without it. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

const run = promisify(execFile);

/**
 * Loads `url` in headless Chromium with no network beyond what the flags allow, lets its
 * scripts run for `budgetMs` of virtual time, and returns the DOM it rendered (with what it
 * printed, should it be stopped by `timeoutMs` first).
 */
export async function renderedDom(
  url: string,
  options: { profile: string; budgetMs: number; timeoutMs?: number; flags?: string[] },
): Promise<string> {
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${options.profile}`,
    ...(options.flags ?? []),
    `--virtual-time-budget=${options.budgetMs}`,
    '--dump-dom',
    url,
  ];
  const { stdout } = await run(CHROMIUM!, args, { timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string }) => ({ stdout: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
  return stdout;
}
