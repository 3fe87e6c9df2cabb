import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { connectMcp } from '../support/mcp.js';

const BODY = 'I keep the shared bicycle shed locked at night and return the key to the hook by the door.';

/** MCP_SECRET_INPUT=url_only: signature codes and passkey responses never come as tool arguments. */
describe('MCP: an operator who requires secret inputs on the service\'s page', () => {
  let t: TestApp;
  let apiKey: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ MCP_SECRET_INPUT: 'url_only' });
    token = await t.signIn('carol@example.com');
    apiKey = (await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['create', 'retrieve', 'verify'] } })).body.key;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const draft = async (client: Awaited<ReturnType<typeof connectMcp>>) => {
    const created = await client.call('create_agreement', { type: 'declaration', body: BODY, on_chain_full_text: false, on_chain_include_verified_parties: false, required_signature_method_count: 1 });
    const reference = created.structured.agr_reference as string;
    await client.call('start_or_resume_signature_execution', { agr_reference: reference });
    return reference;
  };

  it('says so in the diagnostics', async () => {
    expect((await t.request('GET', '/mcp/diagnostics')).body).toMatchObject({ secret_inputs: 'url_only' });
  });

  it('refuses email_otp and webauthn_passkey to a client without URL-mode elicitation, naming the capability, before any mail', async () => {
    const plain = await connectMcp(t.url, { bearer: apiKey });
    const reference = await draft(plain);
    const before = t.smtp.messages.length;
    for (const method of ['email_otp', 'webauthn_passkey']) {
      const refused = await plain.call('start_signature_method', { agr_reference: reference, method_type: method });
      expect(refused.isError).toBe(true);
      expect(refused.structured).toMatchObject({ error_code: 'validation_error', issues: [{ path: ['method_type'], type: 'url_elicitation_required' }] });
      expect(refused.structured.message).toContain('capabilities.elicitation.url');
    }
    const code = await plain.call('submit_signature_method_input', { agr_reference: reference, method_type: 'email_otp', code: '123456' });
    expect(code.structured).toMatchObject({ error_code: 'validation_error', issues: [{ path: ['code'] }] });
    expect(t.smtp.messages.length).toBe(before);
    // Nor a sign-in code: refused before one is mailed.
    const signIn = await plain.call('request_authentication_otp', { email: 'carol@example.com' });
    expect(signIn.structured).toMatchObject({ error_code: 'validation_error', issues: [{ type: 'url_elicitation_required' }] });
    expect(t.smtp.messages.length).toBe(before);
    // Methods without a secret input still work.
    const post = await plain.call('start_signature_method', { agr_reference: reference, method_type: 'codehost_gist', handle: 'carol' });
    expect(post.isError).toBe(false);
    await plain.close();
  });

  it('refuses a code as an argument from a client that has URL-mode elicitation, telling it to call without the code, and gives it the page', async () => {
    const client = await connectMcp(t.url, { bearer: apiKey, capabilities: { elicitation: { url: {} } } });
    const reference = await draft(client);
    const started = await client.call('start_signature_method', { agr_reference: reference, method_type: 'email_otp' });
    expect(started.isError).toBe(false);
    const code = await t.smtp.codeFor('carol@example.com');
    const refused = await client.call('submit_signature_method_input', { agr_reference: reference, method_type: 'email_otp', code });
    expect(refused.structured).toMatchObject({ error_code: 'validation_error', issues: [{ path: ['code'], type: 'url_elicitation_required' }] });
    // It declared the capability already: it is told to call without the code, not to declare it.
    expect(refused.structured.message).toContain('call submit_signature_method_input again without `code`');
    expect(refused.structured.message).not.toContain('must declare');
    await expect(client.call('submit_signature_method_input', { agr_reference: reference, method_type: 'email_otp' })).rejects.toMatchObject({ code: -32042 });
    // The same for a sign-in code given as an argument.
    const requested = await client.call('request_authentication_otp', { email: 'carol@example.com' });
    const signIn = await client.call('verify_authentication_otp', { verification_event_id: requested.structured.verification_event_id, code: '123456' });
    expect(signIn.structured).toMatchObject({ error_code: 'validation_error', issues: [{ path: ['code'], type: 'url_elicitation_required' }] });
    expect(signIn.structured.message).toContain('call verify_authentication_otp again without `code`');
    expect(signIn.structured.message).not.toContain('must declare');
    await client.close();
  });

  it('refuses malformed and unknown links, and a link whose caller\'s API key was revoked, with the reason', async () => {
    const claim = (ticket: string, browserKey: string) =>
      t.graphql('mutation ($ticket: String!, $browserKey: String!) { claimSecretInput(ticket: $ticket, browserKey: $browserKey) { methodType } }', { ticket, browserKey });
    const browserKey = 'b'.repeat(32);
    expect((await claim('short', browserKey)).body.errors?.[0]).toMatchObject({ extensions: { code: 'validation_error' } });
    expect((await claim('short', browserKey)).body.errors?.[0].message).toContain('ticket');
    expect((await claim('t'.repeat(40), 'no')).body.errors?.[0].message).toContain('browser key');
    expect((await claim('t'.repeat(40), browserKey)).body.errors?.[0]).toMatchObject({ message: 'This link is not valid', extensions: { code: 'not_found' } });

    // A link issued to a call made with an API key stops working when that key is revoked.
    const issued = (await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['create', 'retrieve', 'verify'] } })).body as { id: string; key: string };
    const client = await connectMcp(t.url, { bearer: issued.key, capabilities: { elicitation: { url: {} } } });
    const reference = await draft(client);
    await client.call('start_signature_method', { agr_reference: reference, method_type: 'email_otp' });
    const error = await client.call('submit_signature_method_input', { agr_reference: reference, method_type: 'email_otp' }).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const ticket = new URL((error as UrlElicitationRequiredError).elicitations[0]!.url).hash.slice(1);
    expect((await claim(ticket, browserKey)).body.data?.claimSecretInput).toEqual({ methodType: 'email_otp' });
    expect((await t.request('DELETE', `/api/v1/api-keys/${issued.id}`, { token })).status).toBe(204);
    expect((await claim(ticket, browserKey)).body.errors?.[0]).toMatchObject({ message: 'The credential the assistant used was revoked or has expired', extensions: { code: 'conflict' } });
    await client.close().catch(() => undefined);
  });

  it('refuses a link once the record has moved to a new version, to open and to use, naming the version', async () => {
    const browserKey = 'c'.repeat(32);
    const client = await connectMcp(t.url, { bearer: apiKey, capabilities: { elicitation: { url: {} } } });
    const reference = await draft(client);
    await client.call('start_signature_method', { agr_reference: reference, method_type: 'email_otp' });
    const code = await t.smtp.codeFor('carol@example.com');
    const error = await client.call('submit_signature_method_input', { agr_reference: reference, method_type: 'email_otp' }).then(() => null, (caught: unknown) => caught);
    const ticket = new URL((error as UrlElicitationRequiredError).elicitations[0]!.url).hash.slice(1);
    const claim = () => t.graphql('mutation ($ticket: String!, $browserKey: String!) { claimSecretInput(ticket: $ticket, browserKey: $browserKey) { recordVersion } }', { ticket, browserKey });
    expect((await claim()).body.data?.claimSecretInput).toEqual({ recordVersion: 1 });

    // The initiator changes the text while the link is open: a new version, which the code must not sign.
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const id = (await db.query<{ id: string }>(`select id from records where reference = $1`, [reference])).rows[0]!.id;
      const edited = await t.request('PATCH', `/api/v1/agreements/${id}`, { token, body: { body: `${BODY} The shed's code changes every spring.` } });
      expect(edited.status).toBe(200);
      expect(edited.body.current_version).toBe(2);
      const changed = { message: 'The record changed to version 2: ask the assistant to start again', extensions: { code: 'conflict' } };
      expect((await claim()).body.errors?.[0]).toMatchObject(changed);
      const complete = (given: string) => t.graphql('mutation ($input: CompleteSecretInputInput!) { completeSecretInput(input: $input) { completed } }', { input: { ticket, browserKey, code: given } });
      expect((await complete(code)).body.errors?.[0]).toMatchObject(changed);
      // Nor does it sign the new version once the assistant has started it there, with the new version's code.
      await client.call('start_or_resume_signature_execution', { agr_reference: reference });
      const mailed = t.smtp.messages.length;
      await client.call('start_signature_method', { agr_reference: reference, method_type: 'email_otp' });
      const second = await t.smtp.codeFor('carol@example.com', mailed);
      expect(second).not.toBe(code);
      expect((await complete(second)).body.errors?.[0]).toMatchObject(changed);
      expect((await db.query(`select count(*)::int as n from signature_methods m join signature_executions e on e.id = m.execution_id where e.record_id = $1 and m.status = 'satisfied'`, [id])).rows[0].n).toBe(0);
      expect((await t.request('POST', `/api/v1/agreements/${id}/signature-execution`, { token })).body).toMatchObject({ record_version: 2, satisfied_method_count: 0 });
    } finally {
      await db.end();
      await client.close();
    }
  });

  it('gives no manual transport token to a sign-in through the page: the grant belongs to the MCP session', async () => {
    const client = await connectMcp(t.url, { capabilities: { elicitation: { url: {} } } });
    const requested = await client.call('request_authentication_otp', { email: 'carol@example.com' });
    expect(requested.isError).toBe(false);
    const refused = await client.call('verify_authentication_otp', { verification_event_id: requested.structured.verification_event_id, manual_transport_token: true });
    expect(refused.structured).toMatchObject({ error_code: 'validation_error', issues: [{ path: ['manual_transport_token'], type: 'not_with_url_mode' }] });
    expect(refused.structured.message).toContain('Mcp-Session-Id');
    // Without it, the call answers the page's link as usual.
    await expect(client.call('verify_authentication_otp', { verification_event_id: requested.structured.verification_event_id })).rejects.toBeInstanceOf(UrlElicitationRequiredError);
    await client.close();
  });

  it('opens secret-input links over MCP sessions only', async () => {
    const answer = await t.graphql('mutation { openSecretInput(recordId: "AGR-0000-0000", methodType: email_otp) { link { url } } }', {}, { token });
    expect(answer.body.errors?.[0]).toMatchObject({ extensions: { code: 'validation_error' } });
    expect(answer.body.errors?.[0].message).toContain('MCP session');
  });
});
