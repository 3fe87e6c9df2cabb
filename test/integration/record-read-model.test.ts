import 'reflect-metadata';
import { CounterProposal, SignedRecord } from '../../src/domain/records/entities.js';
import { toCounterView } from '../../src/domain/records/counter-view.js';
import { readRecords } from '../../src/domain/records/record-read-model.js';
import { recordData, type ParticipantData } from '../../src/domain/records/record-view.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

/** Every field of a participant as views need it: the compiler insists this names each one, no more. */
const PARTICIPANT_FIELDS = {
  id: true, role: true, position: true, displayName: true, contactPointType: true, contactPointValue: true, identity: true, invitedAt: true,
  confirmedAt: true, confirmedVersion: true, declinedAt: true, declinedReason: true, waivedAt: true, removedAt: true,
} as const satisfies Record<keyof ParticipantData, true>;

/**
 * The hand-written SQL read model (one statement per read) and the entities say the same: every field
 * of RecordData, every participant field and the pending counter, read both ways from real rows.
 * A column added to the entity and the view type but not to the statement fails here.
 */
describe('The record read model against the entities', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('reads every RecordData field, participant field and the pending counter as the ORM does', async () => {
    const alice = await t.signIn('alice-model@example.com');
    const created = await t.request('POST', '/api/v1/agreements', {
      token: alice,
      body: agreementBody({ title: 'Model', summary: 'Both ways', jurisdiction: 'DE', lapse_days: 5, parties: [{ display_name: 'Bob', contact_point_value: 'bob-model@example.com' }] }),
    });
    await signWithEmailOtp(t, alice, 'alice-model@example.com', created.body.id);
    expect((await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice })).status).toBe(200);
    const bob = await t.signIn('bob-model@example.com');
    const counter = await t.request('POST', `/api/v1/agreements/${created.body.id}/counter`, {
      token: bob,
      body: { proposed_body: 'We agree to share the garden equally and to water it on weekends.', raw_input: 'water on weekends' },
    });
    expect(counter.status).toBe(201);

    const em = t.app.orm.em.fork();
    const entity = await em.findOneOrFail(SignedRecord, created.body.id, { populate: ['participants'] });
    const expected = recordData(entity);
    const [identity] = await em.execute<{ identity_id: string }[]>(`select identity_id from contact_points where value = 'alice-model@example.com'`);
    const { models } = await readRecords(em.fork(), { id: created.body.id }, { identityId: identity!.identity_id, teamScope: '*' }, { explorerTxUrl: undefined });
    const read = models[0]!;

    const { participants: readParticipants, ...readColumns } = read.record;
    const { participants: entityParticipants, ...entityColumns } = expected;
    expect(Object.keys(readColumns).sort()).toEqual(Object.keys(entityColumns).sort());
    expect(readColumns).toEqual(entityColumns);

    const fields = Object.keys(PARTICIPANT_FIELDS) as (keyof ParticipantData)[];
    expect(readParticipants.map((p) => Object.keys(p).sort())).toEqual(readParticipants.map(() => [...fields].sort()));
    const pick = (p: ParticipantData) => Object.fromEntries(fields.map((field) => [field, p[field]]));
    expect(readParticipants.map(pick)).toEqual([...entityParticipants].sort((a, b) => a.position - b.position).map(pick));

    const pending = await em.findOneOrFail(CounterProposal, { record: entity.id, status: 'pending' });
    expect(read.counter).toEqual(toCounterView(pending));
  });
});
