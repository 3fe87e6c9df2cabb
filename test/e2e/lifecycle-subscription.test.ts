import type { RecordLifecycleEvent } from '../../src/domain/shared/events.js';
import { until, watchSubscription, type SubscribedInstance } from '../support/subscriptions.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

const SUBSCRIPTION = `subscription($recordId: String!) {
  recordLifecycle(recordId: $recordId) { recordId trigger fromStatus toStatus participantId recordVersion at }
}`;

/** The subscription carries the domain's event as it is. */
type LifecycleEvent = RecordLifecycleEvent;

function watch(on: SubscribedInstance, token: string, recordId: string) {
  return watchSubscription<LifecycleEvent>(on, token, SUBSCRIPTION, 'recordLifecycle', { recordId });
}

describe('Live record lifecycle over graphql-ws', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '200', METHOD_STARTS_PER_WINDOW: '200' });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('shows a party the submission and the sealing of a record, and a stranger nothing', async () => {
    const alice = await t.signIn('alice@example.com');
    const bob = await t.signIn('bob@example.com');
    const mallory = await t.signIn('mallory@example.com');
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    const record = created.body as { id: string; agr_reference: string; parties: { id: string; role: string }[] };
    const bobRow = record.parties.find((p) => p.role === 'party')!;

    const bobWatch = watch(t, bob, record.agr_reference);
    const malloryWatch = watch(t, mallory, record.id);
    await Promise.all([bobWatch.ready, malloryWatch.ready]);
    await until(() => malloryWatch.errors.length > 0, "the stranger's refusal");
    expect(JSON.stringify(malloryWatch.errors)).toContain('not_found');

    await signWithEmailOtp(t, alice, 'alice@example.com', record.id);
    const submitted = await t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice });
    expect(submitted.body.status).toBe('pending_confirmation');
    await until(() => bobWatch.events.length >= 1, 'the submit event');

    const sealed = await signWithEmailOtp(t, bob, 'bob@example.com', record.id);
    expect(sealed.body.status).toBe('sealed');
    await until(() => bobWatch.events.length >= 2, 'the sealing event');

    expect(bobWatch.events).toEqual([
      { recordId: record.id, trigger: 'submit', fromStatus: 'draft', toStatus: 'pending_confirmation', participantId: null, recordVersion: 1, at: expect.any(String) },
      {
        recordId: record.id,
        trigger: 'complete_signatures',
        fromStatus: 'pending_confirmation',
        toStatus: 'sealed',
        participantId: bobRow.id,
        recordVersion: 1,
        at: expect.any(String),
      },
    ]);
    expect(bobWatch.errors).toEqual([]);
    expect(malloryWatch.events).toEqual([]);
    await Promise.all([bobWatch.dispose(), malloryWatch.dispose()]);
  });
});
