import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/** How often a line says where the run is, at the least. */
const EVERY_MS = 30_000;

/**
 * A progress line at least every 30 seconds, beside the default reporter: how many test
 * files are done of how many, for how long the run has gone, and which files are running
 * now, with how long each has run. Some files run for minutes (real server processes, the
 * generated differential); without it the default reporter prints nothing meanwhile.
 */
export default class ProgressReporter implements Reporter {
  private readonly running = new Map<string, number>();
  private total = 0;
  private done = 0;
  private started = 0;
  private timer: NodeJS.Timeout | null = null;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.done = 0;
    this.started = Date.now();
    this.timer = setInterval(() => this.report(), EVERY_MS);
    this.timer.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.relativeModuleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.relativeModuleId);
    this.done++;
  }

  onTestRunEnd(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private report(): void {
    const now = Date.now();
    const seconds = (since: number) => `${Math.round((now - since) / 1000)} s`;
    const files = [...this.running].map(([file, since]) => `${file} (${seconds(since)})`).join(', ');
    process.stdout.write(
      `[progress] ${this.done}/${this.total} files done after ${seconds(this.started)}; running: ${files || (this.done === 0 ? "none yet (the run's database templates are being made)" : 'none')}\n`,
    );
  }
}
