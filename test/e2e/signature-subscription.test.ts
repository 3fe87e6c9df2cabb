import { until, watchSubscription, type SubscribedInstance } from '../support/subscriptions.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

const SUBSCRIPTION = `subscription($recordId: String!) {
  signatureProgress(recordId: $recordId) { recordId participantId event methodType executionStatus satisfiedMethodCount canFinalize recordVersion }
}`;

type Progress = { event: string; methodType: string | null; canFinalize: boolean; recordId: string };

function watch(on: SubscribedInstance, token: string, recordId: string) {
  return watchSubscription<Progress>(on, token, SUBSCRIPTION, 'signatureProgress', { recordId });
}

describe('Live signature progress across two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({}, { sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b.stop();
    await a.stop();
  });

  it("shows a party each step of the initiator's ceremony, and a stranger nothing", async () => {
    const alice = await a.signIn('alice@example.com');
    const record = (await a.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() })).body as { id: string; agr_reference: string };
    const bob = await b.signIn('bob@example.com');
    const mallory = await b.signIn('mallory@example.com');

    const bobWatch = watch(b, bob, record.agr_reference);
    const malloryWatch = watch(b, mallory, record.id);
    await Promise.all([bobWatch.ready, malloryWatch.ready]);
    await until(() => malloryWatch.errors.length > 0, "the stranger's refusal");
    expect(JSON.stringify(malloryWatch.errors)).toContain('not_found');

    const path = `/api/v1/agreements/${record.id}/signature-execution`;
    await a.request('POST', path, { token: alice });
    const before = a.smtp.messages.length;
    await a.request('POST', `${path}/methods/email_otp/start`, { token: alice, body: {} });
    const code = await a.smtp.codeFor('alice@example.com', before);
    await a.request('POST', `${path}/methods/email_otp/submit`, { token: alice, body: { code } });
    await a.request('POST', `${path}/finalize`, { token: alice });

    await until(() => bobWatch.events.length >= 4, 'four progress events');
    expect(bobWatch.events.map((e) => [e.event, e.methodType, e.canFinalize])).toEqual([
      ['execution_started', null, false],
      ['method_started', 'email_otp', false],
      ['method_satisfied', 'email_otp', true],
      ['finalized', null, false],
    ]);
    expect(bobWatch.events.every((e) => e.recordId === record.id)).toBe(true);
    expect(bobWatch.errors).toEqual([]);
    expect(malloryWatch.events).toEqual([]);
    await Promise.all([bobWatch.dispose(), malloryWatch.dispose()]);
  });
});
