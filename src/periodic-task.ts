import { logger } from './logger.js';

/**
 * A round of background work run again and again until stopped: the round says how long to wait
 * before the next one (0 when it left work behind), a failed round is logged and retried after
 * `retryMs`, and `stop` waits for the round under way, so a shutdown never cuts one in half. The
 * timer does not keep the process alive. The outbox worker and the event purge are two of these.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly round: () => Promise<number>,
    private readonly retryMs: number,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .catch((error: unknown) => {
          logger.warn({ err: error }, `${this.name} failed; retrying`);
          return this.retryMs;
        })
        .then((next) => this.schedule(next));
    }, delayMs);
    this.timer.unref();
  }
}
