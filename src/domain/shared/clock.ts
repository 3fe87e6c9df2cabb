/** Time as a dependency, so that expiry and scheduling can be tested with a controllable clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
