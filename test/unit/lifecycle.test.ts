import { RECORD_STATUSES } from '../../src/domain/records/entities.js';
import { LIFECYCLE_TRIGGERS, TRANSITIONS, findTransition, transition } from '../../src/domain/records/lifecycle.js';
import { DomainError } from '../../src/domain/shared/errors.js';

describe('Record lifecycle table', () => {
  const pairs = RECORD_STATUSES.flatMap((from) => LIFECYCLE_TRIGGERS.map((trigger) => [from, trigger] as const));

  it.each(pairs)('%s + %s is allowed exactly when the table lists it', (from, trigger) => {
    const row = findTransition(from, trigger);
    if (row) {
      expect(transition(from, trigger)).toBe(row.to);
    } else {
      expect(() => transition(from, trigger)).toThrow(DomainError);
      try {
        transition(from, trigger);
      } catch (error) {
        expect((error as DomainError).code).toBe('invalid_transition');
      }
    }
  });

  it('has one row per (status, trigger) and only known statuses', () => {
    const keys = TRANSITIONS.map((row) => `${row.from}/${row.trigger}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const row of TRANSITIONS) expect(RECORD_STATUSES).toContain(row.to);
  });

  it('ends pending records only through decline, lapse, rescind or completion', () => {
    const exits = TRANSITIONS.filter((row) => row.from === 'pending_confirmation' && row.to !== 'pending_confirmation');
    expect(exits.map((row) => row.to).sort()).toEqual(['counter_under_review', 'declined', 'expired', 'rescinded', 'sealed']);
  });

  it('never leaves a terminal status', () => {
    for (const terminal of ['superseded', 'cancelled_draft', 'expired', 'declined', 'rescinded'] as const) {
      expect(TRANSITIONS.filter((row) => row.from === terminal)).toEqual([]);
    }
  });
});
