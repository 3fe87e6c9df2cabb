/**
 * A background pass (an outbox's sender) that runs when woken and every `pollMs` after the last pass
 * ended, never twice at once: a wake during a pass runs another right after it. Stopping gives a pass
 * under way a few seconds; what it leaves is the next start's.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake(0);
  }

  /** Runs a pass after `delayMs` (at once after the one under way, if any). */
  wake(delayMs = 0): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
    this.timer.unref();
  }

  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
  }

  private run(): void {
    this.timer = null;
    this.running = this.pass()
      .then(() => undefined)
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        const next = this.again ? 0 : this.pollMs;
        this.again = false;
        this.wake(next);
      });
  }
}
