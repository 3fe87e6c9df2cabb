import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { ACCESS_TOKEN_PREFIX, API_KEY_PREFIX } from './domain/identity/session-service.js';

/**
 * Structured logs. Secrets never reach them: credentials headers are not serialized at all, and
 * anything that looks like a code, token or key is censored wherever it appears.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-telegram-bot-api-secret-token"]',
  'res.headers["set-cookie"]',
  '*.code',
  '*.token',
  '*.accessToken',
  '*.access_token',
  '*.refreshToken',
  '*.refresh_token',
  '*.key',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.password',
  '*.authorization',
];

/**
 * Lines go to stdout synchronously unless a destination is given: every exit path (a failed start, the
 * end of a stop, the shutdown timer) writes its last line before `process.exit`. pino's asynchronous
 * default loses it when the line is still on its way to the pipe (its flush returns at once then).
 */
export function createLogger(level: string, destination: DestinationStream = pino.destination({ dest: 1, sync: true })): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { service: 'record-signing' },
      // Every URL in a log line, whoever logs it, loses its secrets (safeUrl).
      formatters: { log: (object) => scrubUrls(object, 0) as Record<string, unknown> },
    },
    destination,
  );
}

/** Query parameters whose names say they carry a secret (api_key, access_token, code, ticket, client_secret...). */
const SECRET_PARAM = /key|token|secret|code|ticket|pass|pwd|otp|sig|auth|session|credential|jwt/i;
/** Our own credentials wherever they appear (rss_key_..., rss_at_..., and any future rss_<kind>_...). */
const PREFIXED_SECRET = new RegExp(`(?:${[API_KEY_PREFIX, ACCESS_TOKEN_PREFIX, 'rss_[a-z]+_'].join('|')})[A-Za-z0-9_-]+`, 'g');
/** Path segments that carry secrets: share-card, sealed-PDF and export download tickets, team invitation tokens, bot tokens in messenger API URLs. */
const SECRET_PATH = /(\/artifacts\/(?:share-card|document)\/|\/export-downloads\/|\/team-invitations\/|\/teams\/invitations\/)[^/?#]+/;

/** A path with its ticket segments redacted (for every place a request path leaves the process: logs, traces). */
function redactTicketPath(path: string): string {
  return path.replace(SECRET_PATH, '$1[redacted]');
}
const BOT_TOKEN = /(\/bot)[^/?#]+/;

export function safeUrl(url: string): string {
  const mark = url.indexOf('?');
  const path = redactTicketPath(mark === -1 ? url : url.slice(0, mark)).replace(BOT_TOKEN, '$1[redacted]');
  const query = mark === -1 ? '' : `?${url.slice(mark + 1).split('&').map(redactParameter).join('&')}`;
  return `${path}${query}`.replace(PREFIXED_SECRET, '[redacted]');
}

function redactParameter(pair: string): string {
  const eq = pair.indexOf('=');
  if (eq === -1) return pair;
  let name = pair.slice(0, eq);
  try {
    name = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // A malformed escape: judge the name as sent.
  }
  return SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
}

const URL_FIELD = /url|uri|href|link|location/i;

/** Copies plain objects (a few levels deep), passing string fields named like URLs through safeUrl. */
function scrubUrls(value: unknown, depth: number): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrubUrls(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key, typeof field === 'string' && URL_FIELD.test(key) ? safeUrl(field) : scrubUrls(field, depth + 1)]),
  );
}

declare module 'http' {
  interface IncomingMessage {
    /** The request's id (httpLogger): the caller's X-Request-Id when well-formed, else a new UUID. */
    id?: string;
  }
}

const REQUEST_ID = /^[\w.-]{1,100}$/;

/** The caller's X-Request-Id when well-formed, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One line per finished request (info, also for 4xx: a client's mistakes and refusals are not the
 * service's trouble, and anyone can send them by the thousand; warn for 503, error for other 5xx) with its id, method, safe URL,
 * user agent, status and time; the id also answers as X-Request-Id. Cheap when the level is off:
 * no child logger and no serialization per request (a level that is not enabled costs one check).
 */
export function httpLogger(logger: Logger) {
  return (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: () => void): void => {
    const id = requestIdOf(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    const url = req.originalUrl ?? req.url ?? '';
    res.once('finish', () => {
      const level = res.statusCode === 503 ? 'warn' : res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: { id, method: req.method, url: safeUrl(url), userAgent: req.headers['user-agent'] },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        res.statusCode >= 500 ? 'request errored' : 'request completed',
      );
    });
    next();
  };
}
