import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { isInitializeRequest, isJSONRPCRequest, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { credentialKey, type Principal } from '../domain/identity/principal.js';
import type { PresentedCredentials } from '../domain/identity/credential-resolver.js';
import { DomainError } from '../domain/shared/errors.js';
import type { GraphContext } from '../graph/context.js';
import type { GraphExecutor } from '../graph/executor.js';
import { BODY_LIMITS, boundedBody, TOO_LARGE_MESSAGE } from '../graph/transport/body-limits.js';
import { buildMcpServer, scopesNeeded } from './server.js';
import { scopesNamed } from './tool.js';
import type { ConfirmationStore, SecretInputPolicy } from './tool.js';
import type { SecretInputMode } from '../domain/mcp/entities.js';
import type { Instruments } from '../domain/shared/instruments.js';
import { eventKey, RequestEventStore, resumeStream, SSE_RETRY_MS, type McpEventLog } from './resumption.js';

/** MCP sessions as stored in PostgreSQL (src/infrastructure/mcp/sessions.ts): any instance continues any session. */
export type McpSessionStore = {
  /** Counted per `client` (an identity, else a network address): a refusal is a DomainError (`rate_limited`, `unavailable`). */
  open(protocolVersion: string, clientName: string | null, client: string | null, secretInput: SecretInputMode, owner: string): Promise<{ id: string; key: string }>;
  /** `owner`: the endpoint and credential that initialized it (null: a session from before owners, bound to none). */
  find(id: string): Promise<{ key: string; protocolVersion: string; secretInput: SecretInputMode; owner: string | null } | null>;
  /** Ends the session if `owner` is its owner. */
  close(id: string, owner: string): Promise<boolean>;
};

export type McpFacadeDeps = {
  executor: GraphExecutor;
  sessions: McpSessionStore;
  /** Answer streams' events, for priming and resumption (SEP-1699) on any instance. */
  events: McpEventLog;
  confirmations: ConfirmationStore;
  /** The MCP transport's credential chain: API keys and manual transport tokens, never REST or GraphQL bearer tokens. */
  authenticate: (credentials: PresentedCredentials) => Promise<Principal | null>;
  /** The retrieval grant an authentication code opened on this stored session, if any. */
  sessionPrincipal: (sessionKey: string) => Promise<Principal | null>;
  /** Host names (no port) and origins accepted (DNS-rebinding protection); evaluated per request (the port is known after listen). */
  allowedHosts: () => string[];
  allowedOrigins: () => string[];
  jsonResponse: boolean;
  /** MCP_SECRET_INPUT: whether secret inputs may still come as tool arguments. */
  secretInputPolicy: SecretInputPolicy;
  /** The OAuth connector's protected resource metadata (`/mcp/oauth`'s), named by /mcp's 401. */
  connectorResourceMetadataUrl: string;
  /** `/mcp/oauth` answered a connection 403 insufficient_scope (its next refresh leads to consent: ConnectorGrants.askedForMoreScope). */
  connectorAskedForMoreScope: (grantId: string) => Promise<void>;
  /** PUBLIC_BASE_URL, where results' links point. */
  publicBaseUrl: string;
  /** Where hosts fetch the server's and tools' icon (`/icon.png` on PUBLIC_BASE_URL). */
  iconUrl: string;
  logger: Logger;
  /** Tool calls counted by tool and outcome (metrics on). */
  instruments?: Instruments;
};

const API_KEY_PREFIX = 'rss_key_';

/** What /mcp takes, said in its 401. */
const CREDENTIALS_TAKEN = '/mcp takes an API key or an MCP transport token as Authorization: Bearer; OAuth connectors use /mcp/oauth';

type JsonRpcErrorBody = { jsonrpc: '2.0'; error: { code: number; message: string }; id: null };
const rpcError = (code: number, message: string): JsonRpcErrorBody => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** A JSON-RPC message read up to BODY_LIMITS.mcp; a longer one answers 413 with a JSON-RPC error. */
const readMessage = boundedBody(express.json, BODY_LIMITS.mcp, (res) => res.status(413).json(rpcError(-32000, TOO_LARGE_MESSAGE)));

/** The transport's Authorization bearer: an API key (by its prefix) or an MCP transport token. */
function presented(req: Request): PresentedCredentials | 'malformed' {
  const authorization = req.headers.authorization;
  if (authorization === undefined) return {};
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (!token) return 'malformed';
  return token.startsWith(API_KEY_PREFIX) ? { apiKey: token } : { bearer: token };
}

const acceptsStreamable = (req: Request) => {
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && accept.includes('text/event-stream');
};

/**
 * `/mcp`: Streamable HTTP with sessions kept in PostgreSQL. Each request runs a fresh SDK server and
 * transport (stateless inside one process) after this router has checked Host and Origin, found or
 * opened the stored session, and resolved the caller; so any instance behind a non-sticky balancer
 * answers any session. SSE answers on a stored session start with a priming event (an id and
 * `retry:`) and keep their events in PostgreSQL for a few minutes: a client whose stream dropped
 * resumes it with `GET /mcp` and `Last-Event-ID`, on any instance (SEP-1699). A standalone
 * server-to-client stream (GET without `Last-Event-ID`) is not offered: 405, as the transport allows.
 */
export function mcpRouter(deps: McpFacadeDeps): express.Router {
  const router = express.Router();
  const hostCheck = (req: Request, res: Response, next: NextFunction) => hostHeaderValidation(deps.allowedHosts())(req, res, next);
  const originCheck = (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !deps.allowedOrigins().includes(origin.replace(/\/+$/, ''))) {
      res.status(403).json(rpcError(-32000, 'Origin not allowed'));
      return;
    }
    next();
  };
  router.use('/mcp', (req, res, next) => {
    // /mcp/diagnostics and /mcp/oauth belong to other routers.
    if (req.path !== '/' && req.path !== '') return next('router');
    next();
  });
  router.use('/mcp', hostCheck, originCheck);
  router.post('/mcp', readMessage, (req, res) => void handlePost(req, res, deps, 'mcp'));
  router.delete('/mcp', (req, res) => void handleDelete(req, res, deps, 'mcp'));
  router.get('/mcp', (req, res) => void handleGet(req, res, deps, 'mcp'));
  router.all('/mcp', (_req, res) => methodNotAllowed(res));
  router.use('/mcp', (error: { type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (error.type === 'entity.parse.failed') res.status(400).json(rpcError(-32700, 'Parse error: invalid JSON'));
    else next(error);
  });
  return router;
}

/** How a request's caller is found: `/mcp` resolves its own credentials; `/mcp/oauth` was authenticated before. */
type CallerOf = (req: Request, res: Response, deps: McpFacadeDeps, sessionKey: string | null) => Promise<Principal | null | 'refused'>;

type Endpoint = 'mcp' | 'mcp_oauth';

/**
 * Who a session belongs to: the endpoint and the transport credential that initialized it (an API
 * key, a bearer session, a connector grant), or `anonymous` for one opened without a credential (then
 * its id alone is the capability, and the sign-in grant opened on it counts as the same caller). Every
 * later request must come with the same owner: another person's key, no credential on a keyed
 * session, or a session of the other endpoint finds no session (404, as for an unknown id).
 */
function ownerOf(endpoint: Endpoint, caller: Principal | null, sessionKey: string | null): string {
  const own = caller === null || (caller.kind === 'mcp_session' && sessionKey !== null && caller.mcpSessionId === sessionKey);
  if (own) return `${endpoint}:anonymous`;
  // A connector is its client for its person: a consent to a larger scope (SEP-835) gives it a new grant, same session.
  if (caller.kind === 'oauth') return `${endpoint}:oauth:${caller.clientId}:${caller.identityId}`;
  return `${endpoint}:${credentialKey(caller)}`;
}

const belongsTo = (session: { owner: string | null }, owner: string): boolean => session.owner === null || session.owner === owner;

function sessionNotFound(res: Response): void {
  res.status(404).json(rpcError(-32001, 'Session not found'));
}

/**
 * `/mcp/oauth`'s MCP side: the same tools and sessions as `/mcp`, for a caller that the OAuth
 * transport check (src/facade-oauth/resource.ts) has already resolved, before any JSON-RPC message.
 */
export function mcpAuthenticatedHandler(deps: McpFacadeDeps): (req: Request, res: Response, principal: Principal) => Promise<void> {
  const step = (middleware: (req: Request, res: Response, next: NextFunction) => void, req: Request, res: Response) =>
    new Promise<boolean>((resolve, reject) => {
      res.once('finish', () => resolve(false));
      middleware(req, res, (error?: unknown) => (error ? reject(error instanceof Error ? error : new Error('the request body could not be read')) : resolve(true)));
    });
  return async (req, res, principal) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !deps.allowedOrigins().includes(origin.replace(/\/+$/, ''))) {
      res.status(403).json(rpcError(-32000, 'Origin not allowed'));
      return;
    }
    if (!(await step(hostHeaderValidation(deps.allowedHosts()), req, res))) return;
    if (req.method === 'DELETE') return handleDelete(req, res, deps, 'mcp_oauth', async () => principal);
    if (req.method === 'GET') return handleGet(req, res, deps, 'mcp_oauth', async () => principal);
    if (req.method !== 'POST') return methodNotAllowed(res);
    try {
      // False: refused as too large, answered.
      if (!(await step(readMessage, req, res))) return;
    } catch {
      res.status(400).json(rpcError(-32700, 'Parse error: invalid JSON'));
      return;
    }
    if (await refusedForScope(req.body, principal, deps, res)) return;
    await handlePost(req, res, deps, 'mcp_oauth', async () => principal);
  };
}

/**
 * Incremental consent (SEP-835) for OAuth connectors: a tools/call that needs a scope the token was
 * not granted is answered at the transport, before it runs, with `403` and
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="<granted and needed>"` (and
 * offline_access when the grant has it, so that the new grant keeps a refresh token), from which the
 * SDK's client asks the person to consent to the larger scope and sends the call again. (`/mcp`'s API
 * keys cannot grow, so there the call answers `missing_scope` in its result.)
 */
async function refusedForScope(body: unknown, principal: Principal, deps: McpFacadeDeps, res: Response): Promise<boolean> {
  if (principal.kind !== 'oauth') return false;
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = message as { method?: unknown; id?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
    if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') continue;
    const missing = (scopesNeeded(call.params.name, call.params.arguments) ?? []).filter((scope) => !principal.scopes.includes(scope));
    if (missing.length === 0) continue;
    await deps.connectorAskedForMoreScope(principal.grantId);
    const wanted = [...new Set([...principal.scopes, ...missing, ...(principal.offlineAccess ? ['offline_access'] : [])])].join(' ');
    const said = `${call.params.name} needs ${scopesNamed(missing)}, which this connector was not granted`;
    res.setHeader('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${deps.connectorResourceMetadataUrl}", error_description="${said}"`);
    res.status(403).json({ jsonrpc: '2.0', error: { code: -32001, message: `${said}: the person can consent to it`, data: { required_scopes: missing } }, id: typeof call.id === 'string' || typeof call.id === 'number' ? call.id : null });
    return true;
  }
  return false;
}

async function handlePost(req: Request, res: Response, deps: McpFacadeDeps, endpoint: Endpoint, callerOf: CallerOf = authenticate): Promise<void> {
  try {
    const body: unknown = req.body;
    // Requests the transport refuses by itself (406 Accept, 415 Content-Type, malformed JSON-RPC) open no session.
    if (!acceptsStreamable(req) || body === undefined) return await serve(req, res, deps, null, null);
    const messages = Array.isArray(body) ? body : [body];
    const initialize = messages.find(isInitializeRequest);
    if (initialize) {
      // A refused credential opens no session.
      const caller = await callerOf(req, res, deps, null);
      if (caller === 'refused') return;
      const requested = initialize.params.protocolVersion;
      const negotiated = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      const client = caller && 'identityId' in caller ? `identity:${caller.identityId}` : `address:${req.ip ?? 'unknown'}`;
      // URL-mode elicitation is declared as `elicitation: { url: {} }` (an empty `elicitation` means form mode only).
      const secretInput: SecretInputMode = initialize.params.capabilities.elicitation?.url ? 'url' : 'argument';
      let opened: { id: string; key: string };
      try {
        opened = await deps.sessions.open(negotiated, initialize.params.clientInfo.name ?? null, client, secretInput, ownerOf(endpoint, caller, null));
      } catch (error) {
        if (!(error instanceof DomainError) || (error.code !== 'rate_limited' && error.code !== 'unavailable')) throw error;
        res.setHeader('Retry-After', String(Math.max(1, Math.ceil(error.details.retryAfterSeconds ?? 1))));
        res.status(error.code === 'rate_limited' ? 429 : 503).json(rpcError(-32000, error.message));
        return;
      }
      res.setHeader('Mcp-Session-Id', opened.id);
      return await serve(req, res, deps, opened.key, caller, secretInput, negotiated, opened.id);
    }
    const found = await storedSession(req, res, deps);
    if (!found) return;
    const { id, session } = found;
    const principal = await callerOf(req, res, deps, session.key);
    if (principal === 'refused') return;
    if (!belongsTo(session, ownerOf(endpoint, principal, session.key))) return sessionNotFound(res);
    await serve(req, res, deps, session.key, principal, session.secretInput, session.protocolVersion, id);
  } catch (error) {
    deps.logger.error({ err: error }, 'MCP request failed');
    if (!res.headersSent) res.status(500).json(rpcError(-32603, 'Internal error'));
  }
}

/** The stored session the request's Mcp-Session-Id names, or null once 400 (none given) or 404 (unknown, ended) is answered. */
async function storedSession(req: Request, res: Response, deps: McpFacadeDeps): Promise<{ id: string; session: NonNullable<Awaited<ReturnType<McpSessionStore['find']>>> } | null> {
  const id = req.headers['mcp-session-id'];
  if (typeof id !== 'string' || id === '') {
    res.status(400).json(rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
    return null;
  }
  const session = await deps.sessions.find(id);
  // The transport spec: an unknown or ended session is 404; the client starts a new one with initialize.
  if (!session) sessionNotFound(res);
  return session ? { id, session } : null;
}

/** The caller: the transport credential when one is presented (an invalid one is 401), else this session's grant, else anonymous. */
async function authenticate(req: Request, res: Response, deps: McpFacadeDeps, sessionKey: string | null): Promise<Principal | null | 'refused'> {
  const credentials = presented(req);
  try {
    if (credentials === 'malformed') throw new DomainError('unauthenticated', 'The Authorization header must be `Bearer <API key or MCP token>`');
    if (credentials.apiKey !== undefined || credentials.bearer !== undefined) return await deps.authenticate(credentials);
    return sessionKey ? await deps.sessionPrincipal(sessionKey) : null;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    // The resource metadata named is the connector's (/mcp/oauth), which is not this resource: a client
    // that would start OAuth for /mcp checks the metadata's resource against /mcp (RFC 9728) and stops
    // there, before registering, instead of getting a token /mcp would refuse.
    res.setHeader('WWW-Authenticate', `Bearer error="invalid_token", error_description="${CREDENTIALS_TAKEN}", resource_metadata="${deps.connectorResourceMetadataUrl}"`);
    res.status(401).json(rpcError(-32001, `${error.message}. ${CREDENTIALS_TAKEN}`));
    return 'refused';
  }
}

async function serve(
  req: Request,
  res: Response,
  deps: McpFacadeDeps,
  sessionKey: string | null,
  principal: Principal | null,
  secretInput: SecretInputMode = 'argument',
  protocolVersion: string | null = null,
  /** The client's Mcp-Session-Id: the key its stored events are sealed under derives from it. */
  sessionId: string | null = null,
): Promise<void> {
  const context: GraphContext = {
    principal,
    via: 'mcp',
    requestId: typeof req.id === 'string' ? req.id : randomUUID(),
    clientAddress: req.ip ?? null,
    mcpSessionKey: sessionKey,
  };
  const server = buildMcpServer(
    { graph: deps.executor.bind(context), principal, confirmations: deps.confirmations, publicBaseUrl: deps.publicBaseUrl, secretInput: { mode: secretInput, policy: deps.secretInputPolicy } },
    deps.logger,
    deps.iconUrl,
    deps.instruments,
  );
  // SSE answers on a stored session are primed and their events stored (JSON answers have no stream to resume).
  const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
  const events =
    sessionKey && sessionId && !deps.jsonResponse
      ? new RequestEventStore(deps.events, sessionKey, credentialKey(principal), eventKey(sessionId), messages.filter(isJSONRPCRequest).map((message) => message.id), deps.logger)
      : undefined;
  if (events && protocolVersion) followNegotiatedVersion(req, protocolVersion);
  // Stateless inside the process: the session lives in PostgreSQL, checked above.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: deps.jsonResponse, eventStore: events, retryInterval: SSE_RETRY_MS });
  const release = () => {
    void transport.close();
    void server.close();
  };
  res.on('close', () => {
    // A client that went away holding an event id of this answer may resume it (on any instance): the
    // request runs on until its response is stored (closing the server would drop it), within a limit.
    if (events?.pending) void events.settled().then(release);
    else release();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

/**
 * Priming (SEP-1699) is the SDK's: with an event store it writes `id:`, `retry:` and an empty `data:`
 * first on an SSE answer, but only for clients at 2025-11-25 or later (older clients fail on the empty
 * data), judged by the request's MCP-Protocol-Version header. On a stored session the version
 * negotiated at initialize governs: a client that negotiated 2025-11-25 handles priming whatever one
 * request's header says (the conformance suite sends `2025-03-26` on its raw SSE requests in a
 * 2025-11-25 session). So the SDK sees the negotiated version when the header is
 * missing or names another supported version; an unsupported one is left for the SDK to refuse (400).
 */
function followNegotiatedVersion(req: Request, negotiated: string): void {
  const header = req.headers['mcp-protocol-version'];
  if (header === negotiated || (typeof header === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(header))) return;
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== 'mcp-protocol-version') raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw, 'mcp-protocol-version', negotiated);
  req.headers['mcp-protocol-version'] = negotiated;
}

function methodNotAllowed(res: Response): void {
  res.setHeader('Allow', 'GET, POST, DELETE');
  res.status(405).json(rpcError(-32000, 'Method not allowed: this server offers no standalone server-initiated stream (GET only resumes an answer stream, with Last-Event-ID); POST requests instead'));
}

/**
 * `GET /mcp`: resumes an SSE answer stream of this session after `Last-Event-ID` (SEP-1699), with the
 * session and credential checks of a POST; without `Last-Event-ID` (a standalone stream) it is 405.
 */
async function handleGet(req: Request, res: Response, deps: McpFacadeDeps, endpoint: Endpoint, callerOf: CallerOf = authenticate): Promise<void> {
  try {
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId !== 'string' || lastEventId === '') return methodNotAllowed(res);
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      res.status(406).json(rpcError(-32000, 'Not Acceptable: Client must accept text/event-stream'));
      return;
    }
    const found = await storedSession(req, res, deps);
    if (!found) return;
    const { id, session } = found;
    const caller = await callerOf(req, res, deps, session.key);
    if (caller === 'refused') return;
    if (!belongsTo(session, ownerOf(endpoint, caller, session.key))) return sessionNotFound(res);
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      res.status(400).json(rpcError(-32000, `Bad Request: Unsupported protocol version (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`));
      return;
    }
    // Another session's event id, an expired or a made-up one resume nothing.
    if (!(await resumeStream(res, deps.events, session.key, credentialKey(caller), eventKey(id), lastEventId))) {
      res.status(400).json(rpcError(-32000, 'Bad Request: Last-Event-ID is not an event of this session that can still be resumed'));
    }
  } catch (error) {
    deps.logger.error({ err: error }, 'MCP stream resumption failed');
    if (!res.headersSent) res.status(500).json(rpcError(-32603, 'Internal error'));
    else res.end();
  }
}

/** `DELETE`: ends the session, for its owner only (with the credential that initialized it). */
async function handleDelete(req: Request, res: Response, deps: McpFacadeDeps, endpoint: Endpoint, callerOf: CallerOf = authenticate): Promise<void> {
  try {
    const found = await storedSession(req, res, deps);
    if (!found) return;
    const caller = await callerOf(req, res, deps, found.session.key);
    if (caller === 'refused') return;
    const owner = ownerOf(endpoint, caller, found.session.key);
    if (belongsTo(found.session, owner) && (await deps.sessions.close(found.id, owner))) res.status(200).end();
    else sessionNotFound(res);
  } catch (error) {
    deps.logger.error({ err: error }, 'MCP session close failed');
    res.status(500).json(rpcError(-32603, 'Internal error'));
  }
}
