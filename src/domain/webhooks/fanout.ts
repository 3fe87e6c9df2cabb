import type { OutboxSubscriber } from '../outbox/dispatcher.js';
import { webhookFactsOf } from './facts.js';

/** The PubSub topic that tells every instance's sender that deliveries are due. */
export const WEBHOOKS_DUE = 'WEBHOOKS_DUE';

/**
 * The readers of record `f` among endpoint owners `w`: a personal record's initiator, a team record's
 * team (the team's own endpoints: a person's endpoint acts for them, not for their teams, as their
 * personal keys do), or an active participant that is the owner or one of the owner's verified
 * contact points, on a team's record other than as its initiator (the read rule of record-access.ts,
 * for a column instead of a parameter).
 */
const OWNER_READS_RECORD = `(w.identity_id = coalesce(f.team_id, f.initiator_identity_id) or exists (
    select 1 from participants p where p.record_id = f.id and p.removed_at is null and (f.team_id is null or p.role <> 'initiator') and (p.identity_id = w.identity_id or exists (
      select 1 from contact_points c where c.identity_id = w.identity_id and c.type = p.contact_point_type and c.value = p.contact_point_value))))`;

/**
 * One statement: a delivery for every enabled endpoint that wants the event and whose owner may read
 * the record, with the exact body every attempt sends. The body holds public-safe facts only: the
 * record's reference, id, type, status and version, and for participant events the participant's id
 * and role; never text, contact addresses, codes, tokens or keys. `record.artifacts_ready` waits
 * until both the sealed PDF and the share card exist (a notarization has no PDF: its card), and is written once per endpoint. Re-running
 * it for the same event writes nothing (unique endpoint and event id).
 */
const FAN_OUT = `
  with facts as (
    select r.id, r.reference, r.type::text as record_type, r.initiator_identity_id, r.team_id,
           coalesce($4::text, r.status::text) as status, coalesce($5::int, r.current_version) as version,
           (select p.role::text from participants p where p.id = $6::uuid and p.record_id = r.id) as participant_role,
           case when $2 = 'counter.resolved' then coalesce($7::text,
             (select c.status from counter_proposals c where c.record_id = r.id and c.resolved_at is not null order by c.resolved_at desc limit 1)) end as resolution
      from records r where r.id = $3::uuid)
  insert into webhook_deliveries (id, endpoint_id, event_id, type, record_id, body, status, attempts, next_attempt_at, created_at)
  select gen_random_uuid(), w.id, $1, $2, f.id,
         json_build_object('type', $2::text, 'id', $1::text, 'timestamp', $8::text,
           'data', json_strip_nulls(json_build_object(
             'agr_reference', f.reference, 'record_id', f.id, 'record_type', f.record_type, 'status', f.status, 'current_version', f.version,
             'participant_id', case when f.participant_role is not null then $6::uuid end, 'participant_role', f.participant_role,
             'resolution', f.resolution)))::text,
         'pending', 0, now(), now()
    from facts f
    join webhook_endpoints w on w.enabled and $2 = any(w.events) and ${OWNER_READS_RECORD}
   where $2 <> 'record.artifacts_ready' or (
           (select count(distinct a.kind) from sealed_artifacts a where a.record_id = f.id and a.kind in ('sealed_pdf', 'share_card'))
             = case when f.record_type = 'notarization' then 1 else 2 end
           and not exists (select 1 from webhook_deliveries x where x.endpoint_id = w.id and x.record_id = f.id and x.type = 'record.artifacts_ready'))
  on conflict (endpoint_id, event_id) do nothing`;

const ENDPOINTS_ENABLED = 'exists (select 1 from webhook_endpoints where enabled)';

/**
 * The outbox subscriber that turns domain events into webhook deliveries, in the dispatcher's
 * transaction (after the change committed: what it reads is what the change left), and wakes every
 * instance's sender with that commit. While no endpoint is enabled it asks nothing, and the journal's
 * inline delivery (notifications sent with the change's commit) goes on as without webhooks.
 */
export function webhookFanout(notifySql: (topic: string) => string | null, eventIdOf: (outboxId: string) => string): OutboxSubscriber {
  return {
    name: 'webhooks',
    deliver: async (event, client, atCommit, eventId) => {
      const facts = webhookFactsOf(event);
      if (!facts) return;
      const written = await client.query(FAN_OUT, [
        eventIdOf(String(eventId)),
        facts.type,
        facts.recordId,
        facts.status,
        facts.version,
        facts.participantId,
        facts.resolution,
        facts.at,
      ]);
      if ((written.rowCount ?? 0) > 0) atCommit(notifySql(WEBHOOKS_DUE));
    },
    // Nothing to do unless some endpoint is enabled: then the change's events wait for the dispatcher,
    // which fans them out (read in the change's own statement, so no endpoint registered before it is missed).
    notifications: () => [],
    dispatchedWhen: (event) => (webhookFactsOf(event) ? ENDPOINTS_ENABLED : null),
  };
}
