/**
 * The typed client: openapi-fetch over the service's own contract (`generated/openapi.ts`, made by
 * `npm run client:generate` from the served document), sending through the transport, with the
 * email-code sign-in on top.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';
import type { TypedMethod } from './methods.js';
import { createTransport, type Credentials, type Fetch, type RateLimitOptions } from './transport.js';

type Schemas = components['schemas'];

export type RecordSigningClientOptions = {
  /** The service's origin (`https://records.example.com`); the contract's paths start with `/api/v1`. */
  baseUrl: string;
  /** A scoped API key, sent as `X-API-Key`. */
  apiKey?: string;
  /** A bearer access token; `signIn` sets one. Sent instead of the API key when both are there. */
  token?: string;
  /** What sends the requests (default: the global fetch). */
  fetch?: Fetch;
  /** Waits on `429` per `Retry-After`, a bounded number of times. */
  rateLimit?: RateLimitOptions;
};

export type RecordSigningClient = Pick<Client<paths>, 'use' | 'eject'> & {
  GET: TypedMethod<'get'>;
  POST: TypedMethod<'post'>;
  PATCH: TypedMethod<'patch'>;
  DELETE: TypedMethod<'delete'>;
  /** Asks the service to mail a sign-in code to `email`; the code goes to `signIn` with the answer's `verification_event_id`. */
  requestSignInCode(email: string): Promise<Schemas['OTPRequestResponse']>;
  /** Exchanges the mailed code for an access token, which this client sends on every request from then on. */
  signIn(verificationEventId: string, code: string): Promise<Schemas['OTPVerifyResponse']>;
};

/** An answer a helper could not use: its status, and the service's `error_code` when it has one (a 422 lists issues instead). */
export class RecordSigningError extends Error {
  readonly errorCode: string | undefined;
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const { detail, error_code: code } = (typeof body === 'object' && body !== null ? body : {}) as { detail?: unknown; error_code?: unknown };
    super(`${status}${typeof code === 'string' ? ` ${code}` : ''}: ${typeof detail === 'string' ? detail : JSON.stringify(body)}`);
    this.name = 'RecordSigningError';
    this.errorCode = typeof code === 'string' ? code : undefined;
  }
}

function dataOf<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new RecordSigningError(result.response.status, result.error);
  return result.data;
}

export function createRecordSigningClient(options: RecordSigningClientOptions): RecordSigningClient {
  const credentials: Credentials = { token: options.token, apiKey: options.apiKey };
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    // Late-bound, so that a test's or a polyfill's replacement of the global fetch is used.
    fetch: createTransport(options.fetch ?? ((request) => fetch(request)), credentials, options.rateLimit),
  });
  return Object.assign(client, {
    requestSignInCode: async (email) => dataOf(await client.POST('/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } })),
    signIn: async (verificationEventId, code) => {
      const verified = dataOf(await client.POST('/api/v1/verification/verify-otp', { body: { verification_event_id: verificationEventId, code } }));
      if (!verified.access_token) throw new Error('The code was verified but gave no access token: it was not requested for signing in');
      credentials.token = verified.access_token;
      return verified;
    },
  } satisfies Omit<RecordSigningClient, keyof Client<paths>>);
}
