import { isSealingEvent, type DomainEvent } from '../shared/events.js';
import { TRANSITIONS } from '../records/lifecycle.js';
import type { COUNTER_RESOLUTIONS, WebhookEventType } from './events.js';

/** The events whose delivery names the participant (`participant_id`, `participant_role`). */
const PARTICIPANT_EVENT_TYPES = ['participant.signed', 'participant.declined'] as const satisfies readonly WebhookEventType[];

/** What a delivery's `data` holds beyond the record's facts (read when the event is fanned out). */
export type WebhookFacts = {
  type: WebhookEventType;
  recordId: string;
  at: string;
  /** The record's status after the event, when the event says it (else the record's status at fan-out). */
  status: string | null;
  version: number | null;
  participantId: string | null;
  /** For `counter.resolved`: `withdrawn`, or null (the counter's outcome, read at fan-out: accepted, partially_accepted, rejected). */
  resolution: (typeof COUNTER_RESOLUTIONS)[number] | null;
};

/** Moves of a record's life that are no row of the lifecycle table: a record made, a participant who steps out while the record goes on. */
const BESIDE_THE_TABLE: Readonly<Record<'create' | 'amendment_created' | 'cancellation_created' | 'party_declined' | 'witness_declined', WebhookEventType>> = {
  create: 'record.created',
  // An amendment's or mutual cancellation's draft is a record made: the `amend` and `cancel` rows cause no event of their own.
  amendment_created: 'record.created',
  cancellation_created: 'record.created',
  party_declined: 'participant.declined',
  witness_declined: 'participant.declined',
};

/** The webhook event each move causes (null: none of its own): the lifecycle table's rows say theirs (`webhook`). */
const LIFECYCLE_TYPES: ReadonlyMap<string, WebhookEventType | null> = new Map<string, WebhookEventType | null>([
  ...TRANSITIONS.map((row) => [row.trigger, row.webhook] as const),
  ...Object.entries(BESIDE_THE_TABLE),
]);

/**
 * The webhook event a domain event is, or null when integrators are not told of it (a method
 * started, a chain write retrying). A share card or sealed PDF made is `record.artifacts_ready`
 * once both exist, for a notarization once its card does (the fan-out checks that).
 */
export function webhookFactsOf(event: DomainEvent): WebhookFacts | null {
  const none = { status: null, version: null, participantId: null, resolution: null };
  switch (event.type) {
    case 'record_lifecycle': {
      const e = event.data;
      const type = isSealingEvent(event) ? 'record.sealed' : (LIFECYCLE_TYPES.get(e.trigger) ?? null);
      if (!type) return null;
      // A resolution is the counter's own outcome (accepted, partially_accepted, rejected): the fan-out reads it.
      const resolution = e.trigger === 'withdraw_counter' ? 'withdrawn' : null;
      const participantId = (PARTICIPANT_EVENT_TYPES as readonly WebhookEventType[]).includes(type) ? e.participantId : null;
      return { type, recordId: e.recordId, at: e.at, status: e.toStatus, version: e.recordVersion, participantId, resolution };
    }
    case 'signature_progress': {
      const e = event.data;
      if (e.event !== 'finalized') return null;
      return { ...none, type: 'participant.signed', recordId: e.recordId, at: e.at, status: e.recordStatus ?? null, version: e.recordVersion, participantId: e.participantId };
    }
    case 'record_artifact': {
      const e = event.data;
      if (e.artifact === 'blockchain') return e.state === 'confirmed' ? { ...none, type: 'record.anchored', recordId: e.recordId, at: e.at } : null;
      return e.state === 'ready' ? { ...none, type: 'record.artifacts_ready', recordId: e.recordId, at: e.at } : null;
    }
  }
}
