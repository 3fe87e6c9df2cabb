import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { HEALTH_BODY } from '../facade-rest/routes/meta.js';
import { restError, sendRestError } from '../facade-rest/errors.js';
import { OAUTH_MOUNT } from '../facade-oauth/paths.js';
import { closeUnreadBodies } from '../graph/transport/body-limits.js';
import { DEADLINE_MESSAGE, DEADLINE_RETRY_AFTER_SECONDS, requestDeadline } from '../graph/transport/deadline.js';
import { quotaHeaders } from '../graph/transport/quota-headers.js';
import { sendGraphqlRefusal } from '../graph/transport/refusal.js';
import { httpLogger, requestIdOf } from '../logger.js';
import { httpDrain, type HttpDrain } from './drain.js';
import type { AnswerCache } from '../domain/shared/answer-cache.js';
import { keptAnswerFor, type KeptAnswer } from '../facade-rest/kept-public-answers.js';
import type { EarlyAnswers, EarlyHandler } from '../graph/transport/early-answers.js';

const noop = () => undefined;

/**
 * The HTTP server and the express app every transport mounts on, with what applies to all of them:
 * security headers, the request log, request deadlines, quota headers on anonymous routes, and the
 * liveness probe and kept public answers answered before express, the drain of a clean stop (every answer is marked), and
 * the end of a connection whose request was answered before its body came (body-limits.ts).
 */
export function createHttp(
  config: Pick<Config, 'requestTimeoutSeconds'>,
  logger: Logger,
  observe?: RequestHandler,
  keptAnswers?: AnswerCache<KeptAnswer> | null,
): { app: Express; server: Server; drain: HttpDrain; early: EarlyAnswers } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  // No automatic ETag: API answers are private and change with every move (hashing each JSON body
  // cost ~2% of a record read); files set their own strong ETag, static assets theirs.
  app.set('etag', false);
  // Helmet's headers do not depend on the request: computed once, set as a block.
  const securityHeaders = constantHeaders(helmet());
  // Liveness first: balancers call it often and it reads nothing, so `GET /health` is answered by the
  // HTTP server itself, before express (below): constant bytes, the security headers and the request
  // id, no request log (same answer as the contract's getHealth; other methods on /health still get
  // the REST facade's 405).
  const health = Buffer.from(JSON.stringify(HEALTH_BODY));
  const healthHeaders = { ...Object.fromEntries(securityHeaders), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(health.length) };
  const answerHealth = (req: IncomingMessage, res: ServerResponse) => void res.setHeader('X-Request-Id', requestIdOf(req)).writeHead(200, healthHeaders).end(health);
  app.use((_req, res, next) => {
    res.setHeaders(securityHeaders);
    next();
  });
  // Every request is timed for the metrics (the liveness probe above is not: it is answered before express).
  if (observe) app.use(observe);
  app.use(httpLogger(logger));
  // A request unanswered at its deadline gets 503 `unavailable`, in its route's own error shape.
  const late = { retryAfterSeconds: DEADLINE_RETRY_AFTER_SECONDS };
  app.use('/api/v1', requestDeadline(config.requestTimeoutSeconds, (res) => sendRestError(res, restError('unavailable', DEADLINE_MESSAGE, late))));
  app.use('/graphql', requestDeadline(config.requestTimeoutSeconds, (res) => sendGraphqlRefusal(res, 503, DEADLINE_MESSAGE, { code: 'unavailable', ...late })));
  // The routes an anonymous caller reaches answer with the client's quota (RateLimit header fields).
  app.use(['/graphql', '/api/v1/verification', '/api/v1/public', OAUTH_MOUNT], quotaHeaders());
  // Answers given before express (kept public answers, kept GraphQL reads) get what express would add
  // to them: the security headers, the request id and log line, the metrics' count under their route.
  const logRequest = httpLogger(logger);
  const sendEarly: EarlyAnswers['send'] = (req, res, answer) => {
    res.setHeaders(securityHeaders);
    (res as ServerResponse & { locals?: object }).locals = { route: answer.route };
    observe?.(req as Request, res as Response, noop);
    logRequest(req, res, noop);
    res.writeHead(answer.status, { ...answer.headers, 'Content-Length': String(answer.body.length) }).end(answer.body);
  };
  const handlers: EarlyHandler[] = [];
  const server = createServer((req, res) => {
    drain.mark(req, res);
    closeUnreadBodies(req, res);
    if (req.method === 'GET' && (req.url === '/health' || req.url?.startsWith('/health?'))) return answerHealth(req, res);
    // The metrics count a kept public answer under its route's template, as the REST facade names it.
    const kept = keptAnswers ? keptAnswerFor(keptAnswers, req) : undefined;
    if (kept) return sendEarly(req, res, { route: kept.route, status: kept.status, headers: kept.headers, body: kept.file });
    const toExpress = () => void app(req, res);
    for (const handler of handlers) if (handler(req, res, toExpress)) return;
    toExpress();
  });
  const drain = httpDrain(server);
  return { app, server, drain, early: { register: (handler) => void handlers.push(handler), send: sendEarly } };
}

/**
 * The headers a middleware that sets the same headers on every response would set (helmet): run
 * once against a recording response, so that each request sets them in one call.
 */
function constantHeaders(middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void): Map<string, string> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void headers.set(name, String(value)),
    removeHeader: (name: string) => void headers.delete(name),
  };
  let called = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, () => void (called = true));
  if (!called) throw new Error('constantHeaders: the middleware did not finish synchronously');
  return headers;
}
