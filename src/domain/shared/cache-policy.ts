/**
 * How long browsers and proxies may keep each kind of answer: one policy for every transport (the web
 * UI, REST, the connector pages, MCP's event stream). The service's own in-memory read caches, and the
 * signals that drop them, are in composition/read-caches.ts; these are the caches outside the process.
 */
export const CACHE_CONTROL = {
  /** Secrets and what only one request may see: keys and tokens shown once, one-time links, consent and token answers. */
  secret: 'no-store',
  /** A person's own documents (a record's PDF and card): the browser may keep them, and asks each time. */
  personal: 'private, no-cache',
  /** Pages that change with each deploy (the UI's index.html, the docs pages): kept, and checked each time. */
  page: 'no-cache',
  /** An event stream: never stored, never transformed by a proxy. */
  stream: 'no-cache, no-transform',
  /** Small public files that change only with a deploy (icons): a day. */
  publicDay: 'public, max-age=86400',
  /** A public stylesheet of the connector pages: an hour. */
  publicHour: 'public, max-age=3600',
} as const;

/** Fingerprinted assets (`/assets/*`, named by their content hash): a year, never revalidated. */
export const IMMUTABLE_ASSET_MAX_AGE = '365d';
