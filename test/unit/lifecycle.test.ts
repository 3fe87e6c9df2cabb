import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORD_STATUSES } from '../../src/domain/records/entities.js';
import { LIFECYCLE_TRIGGERS, PARTICIPANT_MOVES, TRANSITIONS, findTransition, transition } from '../../src/domain/records/lifecycle.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import type { DomainEvent } from '../../src/domain/shared/events.js';
import { webhookFactsOf } from '../../src/domain/webhooks/facts.js';

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

  it('says one webhook event (or none) per trigger, which is the event a move of that trigger is sent as', () => {
    for (const trigger of new Set(TRANSITIONS.map((row) => row.trigger))) {
      const rows = TRANSITIONS.filter((row) => row.trigger === trigger);
      expect(new Set(rows.map((row) => row.webhook)).size).toBe(1);
      const row = rows[0]!;
      const event = { type: 'record_lifecycle', data: { recordId: 'r', trigger, fromStatus: row.from, toStatus: row.to, recordVersion: 1, participantId: null, at: '2026-11-29T00:00:00.000Z' } };
      expect(webhookFactsOf(event as DomainEvent)?.type ?? null).toBe(row.webhook);
    }
  });
});

/** The rows of the first markdown table after `header` on the records page (docs/records.md), as cells. */
function readmeTable(header: string): string[][] {
  const readme = readFileSync(join(import.meta.dirname, '../../docs/records.md'), 'utf8');
  const start = readme.indexOf(header);
  if (start < 0) throw new Error(`docs/records.md has no table headed ${header}`);
  const lines = readme.slice(start).split('\n');
  const rows: string[][] = [];
  for (const line of lines.slice(2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

const unquote = (cell: string) => cell.replace(/`/g, '');
const list = (cell: string) => unquote(cell).split(', ');

describe("The docs' lifecycle tables say what the rows say", () => {
  it('lists every transition with its actor and guard, and nothing else', () => {
    const documented = readmeTable('| From | Trigger | To | Who | Condition |').flatMap(([from, trigger, to, who, condition]) =>
      list(from!).map((status) => `${status} ${unquote(trigger!)} ${unquote(to!)} ${who} ${condition}`),
    );
    const rows = TRANSITIONS.map((row) => `${row.from} ${row.trigger} ${row.to} ${row.actor} ${row.guard}${row.types ? ` (${row.types.join(', ')} only)` : ''}`);
    expect(documented.sort()).toEqual([...rows].sort());
  });

  it('lists every participant move with its statuses, actor, roles and record types', () => {
    const documented = readmeTable('| Move | Record status | Who |').map(([move, statuses, who, roles, types, applies]) =>
      [unquote(move!), list(statuses!).join(','), who, list(roles!).join(','), types === 'all' ? '' : list(types!).join(','), applies].join(' | '),
    );
    const rows = PARTICIPANT_MOVES.map((row) => [row.move, row.statuses.join(','), row.actor, row.roles.join(','), row.types?.join(',') ?? '', row.when].join(' | '));
    expect(documented).toEqual(rows);
  });
});
