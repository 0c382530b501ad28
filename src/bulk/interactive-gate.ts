/**
 * How bulk work yields to interactive requests (docs/decisions.md#bulk-writes): this process's API
 * requests in flight, as admission control admits and lets them go (src/http/admission.ts calls
 * `enter` and `leave`), and a runner about to start its next transaction of lines
 * waits while there are any, up to `maxWaitMs` (so a steady stream of requests slows bulk work
 * down without stopping it). One transaction of lines at a time is what a request can find in
 * its way.
 */
export class InteractiveGate {
  private inFlight = 0;
  private waiting: (() => void)[] = [];

  /** An API request admitted. */
  enter(): void {
    this.inFlight++;
  }

  /** An API request done. */
  leave(): void {
    if (--this.inFlight === 0) this.wake();
  }

  private wake() {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  /** Resolves once no request is in flight, or after `maxWaitMs`. */
  async idle(maxWaitMs: number): Promise<void> {
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((waiter) => waiter !== done);
        resolve();
      }, maxWaitMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.push(done);
    });
  }
}
