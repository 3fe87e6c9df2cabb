/**
 * The typed client: openapi-fetch over the service's own contract (`generated/openapi.ts`, made by
 * `npm run client:generate` from the served document), sending through the transport, with methods
 * that throw on an error answer, files as bytes or a stream, a listing's pages as one iteration, and
 * the email-code sign-in on top.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { AuthenticationError, RecordSigningError, TokenExpiredError, type ErrorBody } from './errors.js';
import type { components, paths } from './generated/openapi.js';
import type { Method, PaginateMethod, RawMethod, StreamMethod } from './methods.js';
import { createTransport, type Credentials, type Fetch, type RetryOptions } from './transport.js';

type Schemas = components['schemas'];

export type RecordSigningClientOptions = {
  /** The service's origin (`https://records.example.com`); the contract's paths start with `/api/v1`. */
  baseUrl: string;
  /** A scoped API key, sent as `X-API-Key`. */
  apiKey?: string;
  /** A bearer access token; `signIn` sets one. Sent instead of the API key when both are there. */
  token?: string;
  /** When `token` expires (a `Date` or epoch milliseconds): a `401` after it is a `TokenExpiredError`. */
  tokenExpiresAt?: Date | number;
  /** What sends the requests (default: the global fetch). */
  fetch?: Fetch;
  /** How often and how long a call is sent again after a `429`, `503` or network failure. */
  retry?: RetryOptions;
};

export type RawClient = Pick<Client<paths>, 'use' | 'eject'> & {
  GET: RawMethod<'get'>;
  POST: RawMethod<'post'>;
  PATCH: RawMethod<'patch'>;
  DELETE: RawMethod<'delete'>;
};

export type RecordSigningClient = Pick<Client<paths>, 'use' | 'eject'> & {
  /** Each answers `{ data, response }`, `data` being the contract's JSON or a file's bytes; an error answer throws a `RecordSigningError`. */
  GET: Method<'get'>;
  POST: Method<'post'>;
  PATCH: Method<'patch'>;
  DELETE: Method<'delete'>;
  /** A file (the sealed PDF, a card) as a `ReadableStream` of its bytes, read as they arrive. */
  stream: StreamMethod;
  /** Every item of a listing (`/identity/agreements`, a webhook's deliveries), fetching page after page by `offset`. */
  paginate: PaginateMethod;
  /** openapi-fetch's methods, answering `{ data, error, response }` without throwing for an error answer. */
  raw: RawClient;
  /** Asks the service to mail a sign-in code to `email`; the code goes to `signIn` with the answer's `verification_event_id`. */
  requestSignInCode(email: string): Promise<Schemas['OTPRequestResponse']>;
  /** Exchanges the mailed code for an access token, which this client sends on every request from then on. */
  signIn(verificationEventId: string, code: string): Promise<Schemas['OTPVerifyResponse']>;
};

type Result = { data?: unknown; error?: unknown; response: Response };
type Init = { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
type Call = (method: string, url: string, init?: Init) => Promise<Result>;

async function contentOf(response: Response): Promise<unknown> {
  if (response.status === 204 || response.body === null) return undefined;
  if (!(response.headers.get('content-type') ?? '').includes('json')) return new Uint8Array(await response.arrayBuffer());
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
}

export function createRecordSigningClient(options: RecordSigningClientOptions): RecordSigningClient {
  const credentials: Credentials = { token: options.token, apiKey: options.apiKey, tokenExpiresAt: options.tokenExpiresAt === undefined ? undefined : Number(options.tokenExpiresAt) };
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    // Late-bound, so that a test's or a polyfill's replacement of the global fetch is used.
    fetch: createTransport(options.fetch ?? ((request) => fetch(request)), credentials, options.retry),
  });
  const request = raw.request as unknown as Call;

  function failure(result: Result): RecordSigningError {
    const body = result.error as ErrorBody | string | undefined;
    if (result.response.status !== 401) return new RecordSigningError(result.response, body);
    const expired = credentials.token !== undefined && credentials.tokenExpiresAt !== undefined && Date.now() >= credentials.tokenExpiresAt;
    return expired ? new TokenExpiredError(result.response, body) : new AuthenticationError(result.response, body);
  }

  /** The answer unread (`parseAs: 'stream'`), so that its content type decides between JSON and bytes. */
  async function send(method: string, url: string, init: Init = {}): Promise<Response> {
    const result = await request(method, url, { ...init, parseAs: 'stream' });
    if (!result.response.ok) throw failure(result);
    return result.response;
  }

  const call = (method: string) => async (url: string, init?: Init) => {
    const response = await send(method, url, init);
    return { data: await contentOf(response), response };
  };

  async function* paginate(url: string, init: Init = {}): AsyncGenerator<unknown> {
    const query = init.params?.query ?? {};
    let offset = typeof query.offset === 'number' ? query.offset : 0;
    for (;;) {
      const response = await send('get', url, { ...init, params: { ...init.params, query: { ...query, offset } } });
      const page = (await response.json()) as Record<string, unknown> & { total: number };
      // A listing holds one list (`agreements`, `deliveries`) beside its `total`.
      const items = Object.values(page).find(Array.isArray) ?? [];
      yield* items;
      offset += items.length;
      // Records added while paging push older ones to later offsets: an item may come twice, never be skipped.
      if (items.length === 0 || offset >= page.total) return;
    }
  }

  const typed = {
    use: (...middleware: Middleware[]) => raw.use(...middleware),
    eject: (...middleware: Middleware[]) => raw.eject(...middleware),
    GET: call('get'),
    POST: call('post'),
    PATCH: call('patch'),
    DELETE: call('delete'),
    stream: async (url: string, init?: Init) => {
      const response = await send('get', url, init);
      return { data: response.body, response };
    },
    paginate,
    raw,
  } as unknown as Omit<RecordSigningClient, 'requestSignInCode' | 'signIn'>;
  return Object.assign(typed, {
    requestSignInCode: async (email: string) => (await typed.POST('/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } })).data,
    signIn: async (verificationEventId: string, code: string) => {
      const { data: verified } = await typed.POST('/api/v1/verification/verify-otp', { body: { verification_event_id: verificationEventId, code } });
      if (!verified.access_token) throw new Error('The code was verified but gave no access token: it was not requested for signing in');
      credentials.token = verified.access_token;
      credentials.tokenExpiresAt = verified.expires_in === undefined ? undefined : Date.now() + verified.expires_in * 1000;
      return verified;
    },
  });
}
