import type { IncomingMessage } from 'node:http';
import type { AnswerCache } from '../domain/shared/answer-cache.js';

/**
 * Public answers kept as the bytes sent, answered by the HTTP server before express: a sealed
 * record's public view is the same for every caller and changes only with an event (which drops it on
 * every instance, read-caches.ts), and shared links bring many readers to one record at once. Express,
 * the route table, the contract's validation, the in-process GraphQL execution and the serialization
 * are then paid once per record and event, not once per reader. What every request still gets is the
 * same as on any route: the security headers, its X-Request-Id, its line in the request log and its
 * count in the metrics (under the route's template), and the drain's `Connection: close` while stopping.
 */

/** An answer kept as sent, with the route template the metrics count it under. */
export type KeptAnswer = { status: number; headers: Record<string, string>; file: Buffer; route: string };

/**
 * The operations whose 200 answers are kept: public (credentials are ignored, so every caller gets the
 * same answer), not limited per caller (a kept answer is not counted), and kept only while the domain
 * keeps the view they show (a sealed, final record: VerificationService.publicRecordKept).
 */
export const KEPT_PUBLIC_OPERATIONS: ReadonlyMap<string, { reference: string }> = new Map([['getPublicAgreement', { reference: 'agr_reference' }]]);

/** Where the kept operations' paths begin: no other request is looked up. */
const KEPT_PREFIX = '/api/v1/public/agreements/';

/** The key of a request's answer: its path as sent and its query, canonical (the same question asked two ways is one answer). */
export function keptAnswerKey(path: string, url: string): string {
  return `${path}?${canonicalQuery(url)}`;
}

/** The kept answer for a request as the HTTP server received it: a GET without a body, on a kept route. */
export function keptAnswerFor(answers: AnswerCache<KeptAnswer>, req: IncomingMessage): KeptAnswer | undefined {
  const { url } = req;
  if (req.method !== 'GET' || !url?.startsWith(KEPT_PREFIX)) return undefined;
  // A request that announces a body is left to express (which reads or refuses it).
  if (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')) return undefined;
  const mark = url.indexOf('?');
  return answers.peek(keptAnswerKey(mark < 0 ? url : url.slice(0, mark), url));
}

/**
 * A URL's query as one string whatever the order of its parameters or their percent-encoding: the same
 * question asked two ways is one kept answer. Repeated parameters keep their order among themselves.
 */
export function canonicalQuery(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return '';
  const params = new URLSearchParams(url.slice(query + 1));
  params.sort();
  return params.toString();
}
