import { agreementBody, type TestApp } from './harness.js';
import { signWithEmailOtp } from './ceremony.js';

export type SealedAgreement = { id: string; reference: string; initiator: string; party: string };

/** Takes a two-party agreement from creation to `sealed` over REST: both sign with email codes. */
export async function sealTwoPartyAgreement(t: TestApp, overrides: Record<string, unknown> = {}, emails = { initiator: 'alice@example.com', party: 'bob@example.com' }): Promise<SealedAgreement> {
  const initiator = await t.signIn(emails.initiator);
  const created = await t.request('POST', '/api/v1/agreements', {
    token: initiator,
    body: agreementBody({ parties: [{ display_name: 'Bob Example', contact_point_value: emails.party }], ...overrides }),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  const acknowledged = overrides.on_chain_include_verified_parties ? { acknowledge_public_verified_parties: true } : {};
  const signed = await signWithEmailOtp(t, initiator, emails.initiator, id, acknowledged);
  if (signed.status !== 200) throw new Error(`initiator finalize: ${signed.status} ${JSON.stringify(signed.body)}`);
  const submitted = await t.request('POST', `/api/v1/agreements/${id}/submit`, { token: initiator });
  if (submitted.status !== 200) throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const party = await t.signIn(emails.party);
  const sealed = await signWithEmailOtp(t, party, emails.party, id, acknowledged);
  if (sealed.status !== 200 || sealed.body.status !== 'sealed') throw new Error(`party finalize: ${sealed.status} ${JSON.stringify(sealed.body)}`);
  return { id, reference: created.body.agr_reference as string, initiator, party };
}
