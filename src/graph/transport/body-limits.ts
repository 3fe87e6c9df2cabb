import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * The most of a request body each HTTP route reads, in bytes: the one table the routes' parsers and
 * their refusals by Content-Length take their limits from.
 */
export const BODY_LIMITS = {
  /** A GraphQL document with its variables. */
  graphql: 256 * 1024,
  /** A REST operation's JSON body. */
  rest: 256 * 1024,
  /** A JSON-RPC message or batch on `/mcp` and `/mcp/oauth`. */
  mcp: 1024 * 1024,
  /** OAuth dynamic registration metadata and token requests. */
  oauth: 16 * 1024,
  /** The consent page's forms: an email address, a code. */
  consentForm: 4 * 1024,
  /** oidc-provider reads its other endpoints' bodies itself, up to this fixed size of its own. */
  oauthProvider: 56 * 1024,
} as const;

export const TOO_LARGE_MESSAGE = 'Request body too large';

/** Writes a route's 413 in its own error shape. */
export type TooLargeAnswer = (res: Response) => void;

/** Whether the request's Content-Length announces more than `limit` bytes of body (none when chunked). */
export function announcesMoreThan(req: Request, limit: number): boolean {
  return Number(req.headers['content-length'] ?? 0) > limit;
}

/**
 * Answers 413 and closes the connection: Node reads a request's unread body to its end to keep the
 * connection for the next request, and a refused body is exactly the one not worth reading.
 */
export function refuseTooLarge(res: Response, answer: TooLargeAnswer): void {
  res.setHeader('Connection', 'close');
  answer(res);
}

/**
 * A body parser (express.json, express.raw, express.urlencoded) bounded to `limit` without reading
 * more than that: a body announced longer is refused by its Content-Length before any of it is read,
 * and one without a length (chunked) as soon as its bytes pass the limit. The parser alone would read
 * an oversized body to its end before failing. Either refusal is `answer`'s 413 with the connection
 * closed; a too-large inflated body the parser finds is answered the same way.
 */
export function boundedBody(parser: (options: { limit: number }) => RequestHandler, limit: number, answer: TooLargeAnswer): RequestHandler {
  const parse = parser({ limit });
  return (req: Request, res: Response, next: NextFunction) => {
    // Read before express (a small JSON body, readSmallJsonBody): parsed the way the parser would have.
    const read = preReadBodies.get(req);
    if (read) {
      preReadBodies.delete(req);
      if ('error' in read) return next(read.error);
      req.body = read.body;
      return next();
    }
    if (announcesMoreThan(req, limit)) return refuseTooLarge(res, answer);
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit && !res.headersSent) refuseTooLarge(res, answer);
    };
    let reading = true;
    void parse(req, res, (error?: unknown) => {
      reading = false;
      req.off('data', count);
      // Refused while the body came: answered already, the connection closing.
      if (res.headersSent) return;
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') return refuseTooLarge(res, answer);
      next(error);
    });
    // Counted beside the parser only once it reads: a listener of its own would make a body nobody
    // reads (one the parser skipped for its type) flow away.
    if (reading && req.listenerCount('data') > 0) req.on('data', count);
  };
}

/**
 * Closes the connection of a request answered before its body arrived whole (refused by its
 * credentials, say), which Node would otherwise read to its end, however long, to keep the connection.
 */
export function closeUnreadBodies(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (!req.complete) req.socket.destroySoon();
  });
}

/** Bodies read before express, parsed or refused as express.json would (their parser then reads nothing). */
const preReadBodies = new WeakMap<IncomingMessage, { body: unknown } | { error: Error }>();

/** The most a body read before express may be: small JSON documents only (a kept GraphQL read's). */
const PRE_READ_LIMIT = 16 * 1024;

/**
 * Whether a request's body may be read before express: announced JSON (UTF-8), not compressed, of a
 * known length of at most PRE_READ_LIMIT. Anything else is express.json's to read, limit and refuse.
 */
export function preReadable(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  if (type === undefined || !/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type)) return false;
  if (req.headers['content-encoding'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
  const length = Number(req.headers['content-length']);
  return Number.isInteger(length) && length >= 2 && length <= PRE_READ_LIMIT;
}

/**
 * Reads a preReadable body whole and parses it as express.json does (strict: an object or an array),
 * remembering the result for the route's boundedBody. Resolves the parsed body, or undefined when it
 * is not JSON (then the route answers its parser's 400). Rejects when the request ends early.
 */
export function readSmallJsonBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('request aborted')));
    req.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        // What JSON allows before its value is only blanks: anything else trimmed here fails to parse below.
        const first = text.trimStart()[0];
        if (first !== '{' && first !== '[') throw new SyntaxError('Unexpected token: a JSON body is an object or an array');
        const body: unknown = JSON.parse(text);
        preReadBodies.set(req, { body });
        resolve(body);
      } catch (error) {
        // What body-parser calls it: the routes answer it as a malformed body (400).
        preReadBodies.set(req, { error: Object.assign(error as Error, { type: 'entity.parse.failed', status: 400, statusCode: 400, expose: true }) });
        resolve(undefined);
      }
    });
  });
}
