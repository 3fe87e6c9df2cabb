import express, { type Request, type Response } from 'express';
import { BODY_LIMITS, boundedBody, TOO_LARGE_MESSAGE } from '../graph/transport/body-limits.js';
import { restError, sendRestError, type RestError } from './errors.js';

/** Deeper JSON than any contract schema needs is refused before anything recurses over it. */
export const MAX_JSON_DEPTH = 32;
/** The REST answer to a body over BODY_LIMITS.rest. */
export const answerTooLarge = (res: Response) => sendRestError(res, restError('payload_too_large', TOO_LARGE_MESSAGE));

const readRaw = boundedBody((options) => express.raw({ ...options, type: () => true }), BODY_LIMITS.rest, answerTooLarge);

/**
 * Reads a REST request body: nothing sent is `undefined`; a body of a text media type the route's
 * contract also takes (`textTypes`: a CSV file) is `text`, as sent (UTF-8); any other that is not JSON answers 415; one
 * too large is answered 413 here, `answered`; unparsable JSON, JSON nested deeper than MAX_JSON_DEPTH
 * or an object with a duplicate key 400 (the last value silently winning would let one field say two
 * things).
 */
export async function readJsonBody(req: Request, res: Response, textTypes: readonly string[] = []): Promise<{ body: unknown; text?: string } | RestError | 'answered'> {
  // Nothing announced (no length, not chunked): no body, nothing to read (most GETs).
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return { body: undefined };
  const outcome = await new Promise<'read' | 'unreadable' | 'answered'>((resolve) => {
    res.once('close', () => resolve('answered'));
    readRaw(req, res, (error?: unknown) => resolve(error ? 'unreadable' : 'read'));
  });
  if (outcome === 'answered') return outcome;
  if (outcome === 'unreadable') return restError('malformed_request', 'Unreadable request body');
  const raw = req.body as unknown;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { body: undefined };
  const textType = textTypes.length > 0 ? req.is(textTypes as string[]) : false;
  if (textType) return { body: undefined, text: raw.toString('utf8') };
  if (!req.is('json')) return restError('unsupported_media_type', `The request body must be ${['application/json', ...textTypes].join(' or ')}`);
  const text = raw.toString('utf8');
  const problem = structureProblem(text, MAX_JSON_DEPTH);
  if (problem) return restError('malformed_request', problem);
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return restError('malformed_request', 'Malformed JSON body');
  }
}

/**
 * One pass over JSON text without recursion: too deep, or a key twice in one object. Only called
 * before JSON.parse, which then refuses whatever else is wrong with the text.
 */
function structureProblem(text: string, maxDepth: number): string | null {
  const frames: { keys: Set<string> | null; expectKey: boolean }[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      const start = index;
      for (index += 1; index < text.length && text[index] !== '"'; index += 1) if (text[index] === '\\') index += 1;
      const frame = frames[frames.length - 1];
      if (frame?.keys && frame.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(start, index + 1)) as string;
        } catch {
          return 'Malformed JSON body';
        }
        if (frame.keys.has(key)) return 'Duplicate key in a JSON object';
        frame.keys.add(key);
        frame.expectKey = false;
      }
    } else if (char === '{' || char === '[') {
      if (frames.length >= maxDepth) return `JSON nested deeper than ${maxDepth} levels`;
      frames.push({ keys: char === '{' ? new Set() : null, expectKey: char === '{' });
    } else if (char === '}' || char === ']') {
      frames.pop();
    } else if (char === ',') {
      const frame = frames[frames.length - 1];
      if (frame?.keys) frame.expectKey = true;
    }
  }
  return null;
}
