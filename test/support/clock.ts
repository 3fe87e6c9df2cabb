import type { Clock } from '../../src/domain/shared/clock.js';

/** A clock the test moves by hand: expiry without waiting. */
export class ManualClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
