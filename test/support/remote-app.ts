import { contractViolation } from './contract.js';
import type { HttpResult, RequestOptions, TestApp } from './harness.js';
import type { CaptureSmtp } from './smtp.js';

/** What the journey helpers (seal-agreement.ts, ceremony.ts) use of a TestApp, over HTTP to services the test did not start in-process. */
export type RemoteApp = Pick<TestApp, 'url' | 'smtp' | 'request' | 'signIn'>;

/**
 * Services run as their own processes or containers (built, production mode), driven over real HTTP:
 * each request goes to the next of `urls`, as a non-sticky balancer would send it, and every answer is
 * checked against the REST contract; sign-in codes come from `smtp`.
 */
export function remoteApp(urls: string[], smtp: CaptureSmtp): RemoteApp & TestApp {
  let turn = 0;
  const request = async <T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult<T>> => {
    const url = urls[turn++ % urls.length]!;
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await response.text();
    const body = (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
    const violation = await contractViolation(method, url + path, response.status, body);
    if (violation) throw new Error(`contract violation: ${violation}`);
    return { status: response.status, body, headers: response.headers };
  };
  const signIn = async (email: string): Promise<string> => {
    const before = smtp.messages.length;
    const requested = await request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    if (requested.status !== 200) throw new Error(`request-otp: ${requested.status} ${JSON.stringify(requested.body)}`);
    const code = await smtp.codeFor(email, before);
    const verified = await request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: requested.body.verification_event_id, code } });
    if (verified.status !== 200) throw new Error(`verify-otp: ${verified.status} ${JSON.stringify(verified.body)}`);
    return verified.body.access_token as string;
  };
  // The journey helpers take a TestApp and use only these; the rest (an in-process app) does not exist here.
  return { url: urls[0]!, smtp, request, signIn } as RemoteApp & TestApp;
}
