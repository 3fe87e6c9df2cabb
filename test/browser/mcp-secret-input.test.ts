import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ErrorCode, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from '../support/harness.js';
import { launchChromium, newContext, screenshots, seriousViolations, startBrowserApp } from '../support/browser.js';
import { ManualClock } from '../support/clock.js';
import { connectMcp, type McpClient } from '../support/mcp.js';

const URL_MODE = { elicitation: { url: {} } };

/** What the SDK's client raises for a call that needs the human on a page: the elicitation it names. */
async function elicitation(client: McpClient, args: Record<string, unknown>, tool = 'submit_signature_method_input'): Promise<{ url: string; elicitationId: string; message: string }> {
  const error = await client.call(tool, args).then(
    (result) => new Error(`answered instead of asking for a page: ${JSON.stringify(result.structured)}`),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UrlElicitationRequiredError);
  const [first, ...more] = (error as UrlElicitationRequiredError).elicitations;
  expect((error as UrlElicitationRequiredError).code).toBe(ErrorCode.UrlElicitationRequired);
  expect(more).toEqual([]);
  expect(first).toMatchObject({ mode: 'url', elicitationId: expect.any(String), url: expect.any(String), message: expect.any(String) });
  return first as { url: string; elicitationId: string; message: string };
}

/**
 * Secret inputs in the human's hands (MCP URL-mode elicitation), driven by the SDK's own client that
 * declares `elicitation.url`: the signature code and the passkey are given on the service's page in
 * Chromium, never as a tool argument, and never appear in a tool result or a log line.
 */
describe('MCP: signature codes and passkeys entered on the service\'s page, never through the assistant', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let human: BrowserContext;
  let page: Page;
  let assistant: McpClient;
  let apiKey: string;
  const clock = new ManualClock();
  /** Every tool result the assistant saw, as text. */
  const seen: string[] = [];

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await assistant.call(name, args);
    seen.push(JSON.stringify(result.result));
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structured)}`);
    return result.structured;
  };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp({}, { clock }), launchChromium()]);
    human = await newContext(browser, t.origin);
    page = await human.newPage();
    const token = await t.signIn('alice@example.com');
    apiKey = (await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] } })).body.key;
    assistant = await connectMcp(t.url, { bearer: apiKey, capabilities: URL_MODE });
  });
  afterAll(async () => {
    await assistant?.close();
    await browser?.close();
    await t?.stop();
  });

  it('signs a declaration with an email code and a passkey given on the page, and seals it', async () => {
    expect(await call('get_authentication_status', {})).toMatchObject({ authenticated: true, secret_input: 'url' });
    const created = await call('create_agreement', {
      type: 'declaration',
      title: 'Garden rules',
      body: 'I keep the shared garden gate closed and water the tomatoes every Sunday this summer.',
      on_chain_full_text: false,
      on_chain_include_verified_parties: false,
      required_signature_method_count: 2,
    });
    const reference = created.agr_reference as string;
    await call('start_or_resume_signature_execution', { agr_reference: reference });
    const before = t.smtp.messages.length;
    const started = await call('start_signature_method', { agr_reference: reference, method_type: 'email_otp' });
    // The way on is a call without the code; the human step says where the code goes.
    expect(started.next_action).toMatchObject({ tool: 'submit_signature_method_input', arguments: { agr_reference: reference, method_type: 'email_otp' } });
    expect(started.next_action.arguments.code).toBeUndefined();
    expect(started.human_step).toMatch(/page/);
    expect(started.human_step).toMatch(/Never ask them for the code/);

    const asked = await elicitation(assistant, started.next_action.arguments);
    expect(asked.url.startsWith(`${t.origin}/secret-input#`)).toBe(true);
    expect(asked.message).toContain(reference);

    // The human opens the page: it shows what they sign before anything is entered.
    await page.goto(asked.url);
    const facts = page.getByRole('definition');
    await page.getByRole('heading', { name: 'Confirm your step' }).waitFor();
    await page.getByText(reference, { exact: true }).waitFor();
    expect(await facts.allTextContents()).toEqual([reference, 'Garden rules', '1', 'Signature code from your mail']);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'mcp-secret-input-code');
    const code = await t.smtp.codeFor('alice@example.com', before);
    await page.getByLabel('Signature code from the mail').fill(code);
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByText('Go back to your assistant').waitFor();
    await screenshots(page, 'mcp-secret-input-done');

    // The same call again: the method is satisfied.
    const after = await call('submit_signature_method_input', started.next_action.arguments);
    expect(after.signature_execution.methods.find((method: { method_type: string }) => method.method_type === 'email_otp')).toMatchObject({ status: 'satisfied' });
    expect(after.signature_execution.satisfied_method_count).toBe(1);

    // The link is spent: reopened it says done, and it takes nothing more.
    await page.reload();
    await page.getByText('Go back to your assistant').waitFor();
    expect(await page.getByLabel('Signature code from the mail').count()).toBe(0);

    // A passkey, made and used on the page by Chromium's virtual authenticator.
    const cdp = await human.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const passkey = await call('start_signature_method', { agr_reference: reference, method_type: 'webauthn_passkey' });
    expect(passkey.next_action).toMatchObject({ tool: 'submit_signature_method_input', arguments: { method_type: 'webauthn_passkey' } });
    expect(passkey.next_action.arguments.credential).toBeUndefined();
    const link = await elicitation(assistant, passkey.next_action.arguments);
    expect(link.elicitationId).not.toBe(asked.elicitationId);
    await page.goto(link.url);
    await page.getByText('Your passkey', { exact: true }).waitFor();
    // First use: register the passkey, then confirm with it, on the same link.
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.getByRole('button', { name: 'Confirm with passkey' }).click();
    await page.getByText('Go back to your assistant').waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);

    let step = await call('submit_signature_method_input', passkey.next_action.arguments);
    expect(step).toMatchObject({ signature_execution: { satisfied_method_count: 2 }, can_finalize: true, next_action: { tool: 'finalize_signature_execution' } });
    // On to the seal by following next_action, as an assistant would.
    for (let i = 0; i < 6 && step.status !== 'sealed'; i += 1) step = await call(step.next_action.tool, step.next_action.arguments);
    expect(step.status).toBe('sealed');

    // The code was in the human's mail and on the page, nowhere else.
    expect(seen.join('\n')).not.toContain(code);
    expect(t.logs()).not.toContain(code);
    expect(t.logs()).not.toContain(new URL(asked.url).hash.slice(1));
    expect(t.logs()).not.toContain(new URL(link.url).hash.slice(1));
  });

  it('keeps a link to the first browser that opened it, and to its session, and not past its time', async () => {
    const created = await call('create_agreement', {
      type: 'declaration',
      title: 'Bike lending',
      body: 'I lend my bike to the neighbours on Saturdays and they bring it back by the evening.',
      on_chain_full_text: false,
      on_chain_include_verified_parties: false,
      required_signature_method_count: 1,
    });
    const reference = created.agr_reference as string;
    await call('start_or_resume_signature_execution', { agr_reference: reference });
    const before = t.smtp.messages.length;
    const started = await call('start_signature_method', { agr_reference: reference, method_type: 'email_otp' });
    const code = await t.smtp.codeFor('alice@example.com', before);

    // Another browser: the link belongs to the one that opened it first.
    const first = await elicitation(assistant, started.next_action.arguments);
    await page.goto(first.url);
    await page.getByText('Bike lending', { exact: true }).waitFor();
    const other = await newContext(browser, t.origin);
    const otherPage = await other.newPage();
    await otherPage.goto(first.url);
    await otherPage.getByText('This link was opened in another browser').waitFor();
    expect(await otherPage.getByLabel('Signature code from the mail').count()).toBe(0);
    await other.close();

    // Past its ten minutes: refused; a new call gives a new link.
    clock.advance(11 * 60_000);
    await page.goto('about:blank');
    await page.goto(first.url);
    await page.getByText('This link has expired').waitFor();
    clock.advance(-11 * 60_000);

    // A link of a session that ended.
    const second = await connectMcp(t.url, { bearer: apiKey, capabilities: URL_MODE });
    const ofEnded = await elicitation(second, started.next_action.arguments);
    await second.transport.terminateSession();
    await second.close();
    await page.goto(ofEnded.url);
    await page.getByText('session that asked for this has ended').waitFor();

    // A wrong code leaves the link usable; the right one completes it once.
    const third = await elicitation(assistant, started.next_action.arguments);
    await page.goto(third.url);
    await page.getByLabel('Signature code from the mail').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByRole('alert').filter({ hasText: /code/i }).waitFor();
    await page.getByLabel('Signature code from the mail').fill(code);
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByText('Go back to your assistant').waitFor();
    const again = await t.graphql(
      'mutation ($input: CompleteSecretInputInput!) { completeSecretInput(input: $input) { completed } }',
      { input: { ticket: new URL(third.url).hash.slice(1), browserKey: await page.evaluate(() => localStorage.getItem('record-signing.secret-input-browser')), code } },
    );
    expect(again.body.errors?.[0]).toMatchObject({ message: 'This link was used already', extensions: { code: 'conflict' } });
    expect(await call('submit_signature_method_input', started.next_action.arguments)).toMatchObject({ can_finalize: true });
  });

  it('signs an assistant in with the sign-in code entered on the page (retrieve only)', async () => {
    const anonymous = await connectMcp(t.url, { capabilities: URL_MODE });
    const before = t.smtp.messages.length;
    const requested = (await anonymous.call('request_authentication_otp', { email: 'alice@example.com' })).structured;
    expect(requested.next_action).toEqual({ tool: 'verify_authentication_otp', arguments: { verification_event_id: requested.verification_event_id }, description: expect.any(String) });
    expect(requested.human_step).toMatch(/Never ask them for the code/);
    const asked = await elicitation(anonymous, requested.next_action.arguments, 'verify_authentication_otp');
    await page.goto(asked.url);
    await page.getByText('(sent to a****@example.com)').waitFor();
    await page.getByText('It cannot sign or change anything').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'mcp-secret-input-sign-in');
    const code = await t.smtp.codeFor('alice@example.com', before);
    await page.getByLabel('Sign-in code from the mail').fill(code);
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByText('Go back to your assistant').waitFor();

    const signedIn = await anonymous.call('verify_authentication_otp', requested.next_action.arguments);
    expect(signedIn.structured).toMatchObject({ authenticated: true, scopes: ['retrieve'], session_bound: true, transport_token: null });
    const listed = await anonymous.call('list_agreements', {});
    expect(listed.isError).toBe(false);
    expect(listed.structured.agreements.map((record: { title: string | null }) => record.title)).toContain('Garden rules');
    expect(JSON.stringify([requested, signedIn.result, listed.result])).not.toContain(code);
    expect(t.logs()).not.toContain(code);
    await anonymous.close();
  });

  it('keeps today\'s flow for a client without URL-mode elicitation', async () => {
    const plain = await connectMcp(t.url, { bearer: apiKey });
    expect((await plain.call('get_authentication_status', {})).structured.secret_input).toBe('argument');
    const created = (await plain.call('create_agreement', {
      type: 'declaration',
      body: 'I return the borrowed ladder to the shed by the end of the month, cleaned and dry.',
      on_chain_full_text: false,
      on_chain_include_verified_parties: false,
      required_signature_method_count: 1,
    })).structured;
    const reference = created.agr_reference as string;
    await plain.call('start_or_resume_signature_execution', { agr_reference: reference });
    const before = t.smtp.messages.length;
    const started = (await plain.call('start_signature_method', { agr_reference: reference, method_type: 'email_otp' })).structured;
    expect(started.next_action.arguments).toMatchObject({ code: expect.stringContaining('six-digit') });
    const code = await t.smtp.codeFor('alice@example.com', before);
    const done = await plain.call('submit_signature_method_input', { agr_reference: reference, method_type: 'email_otp', code });
    expect(done.structured).toMatchObject({ can_finalize: true });
    await plain.close();
  });
});
