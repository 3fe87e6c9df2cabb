import type { Attributes } from '@opentelemetry/api';

/**
 * What a span may carry out of the process: the attributes below and nothing else, each value
 * scrubbed. The instrumentations are configured to record little (no headers, no bodies, no SQL
 * parameters, no GraphQL literals); this is the last gate before the exporter, so that a library
 * update adding an attribute cannot leak a bearer token, a sign-in code, record text or a contact
 * address. Type-only imports: this module loads no OpenTelemetry code.
 */
const KEPT = new Set([
  // HTTP, both generations of the semantic conventions (the instrumentations emit either).
  'http.request.method',
  'http.method',
  'http.response.status_code',
  'http.status_code',
  'http.route',
  'http.scheme',
  'http.flavor',
  'http.target',
  'http.url',
  'url.full',
  'url.path',
  'url.scheme',
  'server.address',
  'server.port',
  'net.host.name',
  'net.host.port',
  'network.protocol.name',
  'network.protocol.version',
  'network.transport',
  // express: the layer (middleware, router, request handler) and its route template.
  'express.name',
  'express.type',
  // GraphQL: the operation, and its document with every literal replaced.
  'graphql.operation.name',
  'graphql.operation.type',
  'graphql.source',
  // PostgreSQL: the statement's text with every literal replaced (never its parameters).
  'db.system',
  'db.system.name',
  'db.name',
  'db.namespace',
  'db.operation',
  'db.operation.name',
  'db.collection.name',
  'db.statement',
  'db.query.text',
  'db.response.status_code',
  'error.type',
  'exception.type',
]);

/** The service's own spans (src/domain/shared/tracing.ts): names and counts only, by construction. */
const OWN_PREFIXES = ['outbox.', 'job.', 'sealing.', 'anchoring.'];

/** On client spans (outgoing calls) also the peer: the chain's RPC host, PostgreSQL's. */
const KEPT_ON_CLIENT_SPANS = new Set(['net.peer.name', 'net.peer.port', 'network.peer.port']);

const EMAIL = /[^\s@"'<>()[\],;:/\\]+@[^\s@"'<>()[\],;:/\\]+\.[A-Za-z]{2,}/g;

/** Replaces anything shaped like an email address. */
function scrubEmails(text: string): string {
  return text.replace(EMAIL, '[email]');
}

/**
 * A URL or path without its query string and fragment (tickets and codes travel in some query
 * strings), and with the ticket of a share-card or sealed-PDF redemption path redacted (logger.ts's
 * SECRET_PATH; not imported: this module loads before the libraries tracing instruments).
 */
export function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/s, '').replace(/(\/artifacts\/(?:share-card|document)\/|\/export-downloads\/)[^/]+/, '$1[redacted]');
}

/**
 * An outgoing call's URL reduced to its origin: a chain RPC URL often carries its API key in the
 * path (`/v3/<key>`) or in userinfo.
 */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '[url]';
  }
}

/**
 * SQL text with every literal replaced by `?`: strings ('...', E'...', dollar-quoted), numbers.
 * Statements sent with the simple protocol carry their values inline (NOTIFY payloads, batched
 * statements); parameters ($1) are never recorded at all.
 */
export function scrubSql(sql: string): string {
  return sql
    .replace(/\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$/g, '?')
    .replace(/(?<![\w])[eE]?'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w])/g, '?');
}

/** A GraphQL document with every string literal replaced (the instrumentation already masks the rest). */
export function scrubGraphql(source: string): string {
  return source.replace(/"""[\s\S]*?"""/g, '"*"').replace(/"(?:[^"\\\n]|\\.)*"/g, '"*"');
}

function scrubValue(key: string, value: string, client: boolean): string {
  switch (key) {
    case 'db.statement':
    case 'db.query.text':
      return scrubEmails(scrubSql(value));
    case 'graphql.source':
      return scrubEmails(scrubGraphql(value));
    case 'url.full':
    case 'http.url':
      return client ? originOf(value) : scrubEmails(withoutQuery(value));
    case 'http.target':
    case 'url.path':
      return client ? '[path]' : scrubEmails(withoutQuery(value));
    default:
      return scrubEmails(withoutQuery(value));
  }
}

type Value = Attributes[string];

function scrub(key: string, value: Value, client: boolean): Value {
  if (typeof value === 'string') return scrubValue(key, value, client);
  if (Array.isArray(value)) return value.map((item: unknown) => (typeof item === 'string' ? scrubValue(key, item, client) : item));
  return value;
}

/** The attributes a span of this kind may export, scrubbed; every other key is dropped. */
export function redactAttributes(attributes: Attributes, options: { client: boolean }): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    const allowed = KEPT.has(key) || OWN_PREFIXES.some((prefix) => key.startsWith(prefix)) || (options.client && KEPT_ON_CLIENT_SPANS.has(key));
    if (allowed) kept[key] = scrub(key, value, options.client);
  }
  return kept;
}

/** A span's name, scrubbed like a value (names are route templates and operation names; this is the backstop). */
export function redactName(name: string): string {
  return scrubEmails(withoutQuery(name));
}

/** An event (an exception) keeps its name and the error's type: messages and stacks may quote input. */
export function redactEventAttributes(attributes: Attributes | undefined): Attributes {
  return attributes?.['exception.type'] !== undefined ? { 'exception.type': attributes['exception.type'] } : {};
}
