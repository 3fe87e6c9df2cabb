import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'record-signing' } }, destination);
}

/** Query parameters and path segments that carry secrets (webhook secret, share-card tickets). */
const SECRET_QUERY = /([?&](?:secret|token|code|key|access_token)=)[^&#]*/gi;
const SECRET_PATH = /(\/artifacts\/share-card\/)[^/?#]+/;

export function safeUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]').replace(SECRET_PATH, '$1[redacted]');
}

export function httpLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: IncomingMessage & { id?: string; raw?: IncomingMessage }) => ({
        id: req.id,
        method: req.method,
        url: safeUrl(req.url ?? ''),
        userAgent: req.headers?.['user-agent'],
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
  });
}
