import { Parser } from 'htmlparser2';
import { recordVerifiedContactPoint } from '../../identity/contact-points.js';
import { randomToken, sha256Hex } from '../../shared/crypto.js';
import { DomainError } from '../../shared/errors.js';
import type { RateLimitRule, RateLimiter } from '../../shared/rate-limiter.js';
import type { MethodStep } from '../entities.js';
import type { MethodContext, MethodOutcome, SignatureMethodAdapter, StepPreview } from './method.js';
import type { Resolver } from '../../shared/outbound-http.js';
import { safeGet, type FetchPolicy } from './safe-fetch.js';

type ProofPost = { text: string; author: string };

/** What distinguishes one public proof-post provider from another; the ceremony is the same for all. */
export type ProofPostProvider = {
  type: 'codehost_gist' | 'microblog_post' | 'forum_post';
  /** Contact point type of the verified handle: the account lives on the provider, not on one post. */
  contactType: string;
  name: string;
  postNoun: string;
  /** Subdomains of the site that also serve public post pages (the code host's `gist.`). */
  pageSubdomains: string[];
  /** The API path (below the API base) for a public page path, or null when the path is not a post. */
  apiPath(pagePath: string): string | null;
  /** The post's text and author handle from the API's JSON, or null when the answer is not a post. */
  parse(json: unknown): ProofPost | null;
};

function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Gists, in the shape of GitHub's API: `GET /gists/{id}` -> `{owner: {login}, files: {name: {content}}}`. */
const CODEHOST_GIST: ProofPostProvider = {
  type: 'codehost_gist',
  contactType: 'codehost',
  name: 'Codehost',
  postNoun: 'gist',
  pageSubdomains: ['gist'],
  apiPath: (path) => {
    const match = /^\/(?:[A-Za-z0-9-]{1,39}\/)?([0-9A-Za-z]{1,64})\/?$/.exec(path);
    return match ? `/gists/${match[1]}` : null;
  },
  parse: (json) => {
    const author = str(at(json, 'owner', 'login'));
    const files = at(json, 'files');
    if (!author || !files || typeof files !== 'object') return null;
    return { author, text: Object.values(files).map((file) => str(at(file, 'content')) ?? '').join('\n') };
  },
};

/** Microblog statuses, in the shape of Mastodon's API: `GET /api/v1/statuses/{id}` -> `{account: {acct}, content: html}`. */
export const MICROBLOG_POST: ProofPostProvider = {
  type: 'microblog_post',
  contactType: 'microblog',
  name: 'Microblog',
  postNoun: 'post',
  pageSubdomains: [],
  apiPath: (path) => {
    const match = /^\/@[A-Za-z0-9_]{1,30}\/(\d{1,20})\/?$/.exec(path);
    return match ? `/api/v1/statuses/${match[1]}` : null;
  },
  parse: (json) => {
    const author = str(at(json, 'account', 'acct'));
    const content = str(at(json, 'content'));
    return author && content !== null ? { author, text: htmlToText(content) } : null;
  },
};

/** Forum posts, in the shape of Discourse's API: `/posts/{id}.json` or `/posts/by_number/{topic}/{n}.json` -> `{username, raw}`. */
export const FORUM_POST: ProofPostProvider = {
  type: 'forum_post',
  contactType: 'forum',
  name: 'Forum',
  postNoun: 'post',
  pageSubdomains: [],
  apiPath: (path) => {
    const short = /^\/p\/(\d{1,12})\/?$/.exec(path);
    if (short) return `/posts/${short[1]}.json`;
    const topic = /^\/t\/[^/]{1,200}\/(\d{1,12})(?:\/(\d{1,6}))?\/?$/.exec(path);
    return topic ? `/posts/by_number/${topic[1]}/${topic[2] ?? '1'}.json` : null;
  },
  parse: (json) => {
    const author = str(at(json, 'username'));
    const raw = str(at(json, 'raw'));
    // Rendered as markdown, where inline HTML (comments, hidden elements) is not seen: match the visible text.
    return author && raw !== null ? { author, text: htmlToText(raw) } : null;
  },
};

/** Elements whose content a reader never sees. */
const UNSEEN_ELEMENTS = new Set(['script', 'style', 'template', 'noscript', 'head', 'iframe', 'object']);
/** Elements that start a new line of text. */
const BLOCK_ELEMENTS = new Set(['p', 'div', 'li', 'ul', 'ol', 'blockquote', 'pre', 'section', 'article', 'header', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'table']);

function hides(name: string, attributes: Record<string, string>): boolean {
  if (UNSEEN_ELEMENTS.has(name) || 'hidden' in attributes || attributes['aria-hidden']?.trim().toLowerCase() === 'true') return true;
  const style = (attributes.style ?? '').toLowerCase().replace(/\s+/g, '');
  return /(^|;)display:none/.test(style) || /(^|;)visibility:(hidden|collapse)/.test(style) || /(^|;)content-visibility:hidden/.test(style);
}

/**
 * The text a reader sees in HTML (microblog statuses are rendered HTML; forum markdown may carry
 * inline HTML): parsed with htmlparser2, without comments, scripts, styles, templates and hidden
 * elements (the `hidden` attribute, `aria-hidden`, inline `display:none` or `visibility:hidden`).
 */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  const hiddenStack: boolean[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const hidden = (hiddenStack.at(-1) ?? false) || hides(name, attributes);
        hiddenStack.push(hidden);
        if (!hidden && (name === 'br' || BLOCK_ELEMENTS.has(name))) parts.push('\n');
      },
      onclosetag(name) {
        const hidden = hiddenStack.pop() ?? false;
        if (!hidden && name === 'p') parts.push('\n\n');
        else if (!hidden && BLOCK_ELEMENTS.has(name)) parts.push('\n');
      },
      ontext(text) {
        if (!(hiddenStack.at(-1) ?? false)) parts.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return parts.join('');
}

/** Handles compare case-insensitively without a leading @ (as the providers treat them). */
function normalizeHandle(value: string): string {
  return value.normalize('NFC').trim().replace(/^@/, '').toLowerCase();
}

const HANDLE = /^[a-z0-9][a-z0-9_.-]{0,63}(@[a-z0-9.-]{1,253})?$/;

type ProofState = { proofLine: string; proofTitle: string; proofText: string; expectedHandle: string | null; url: string | null };

export type ProofPostSettings = {
  apiBase: string;
  /** Test setting: http and 127.0.0.1 for provider hosts. Never any other private range. */
  allowLoopback: boolean;
  /** Provider fetches per participant and provider, so that nobody drives our API quota (or theirs). */
  fetchLimit: RateLimitRule;
  resolve?: Resolver;
};

/**
 * A public post that carries a proof line bound to the record version, the participant and a
 * nonce. The post is read through the provider's API (never the submitted URL itself), so the
 * author handle is the provider's word, and it becomes a verified contact point of the signer.
 *
 * Hosts: public pages live on the API host without a leading `api.` (`api.codehost.example` ->
 * `codehost.example`) and on the provider's page subdomains (`gist.codehost.example`); the API host
 * itself is accepted too. Fetches and their redirects stay on those hosts.
 */
export class ProofPostMethod implements SignatureMethodAdapter {
  readonly type: ProofPostProvider['type'];
  private readonly api: URL;
  private readonly composeUrl: string;
  private readonly policy: FetchPolicy;

  constructor(
    private readonly provider: ProofPostProvider,
    private readonly settings: ProofPostSettings,
    private readonly rateLimiter: RateLimiter,
  ) {
    this.type = provider.type;
    this.api = new URL(settings.apiBase);
    const site = this.api.host.toLowerCase().replace(/^api\./, '');
    const named = !/^[\d.]+(:\d+)?$|^\[/.test(site); // subdomains of an IP address mean nothing
    const pages = named ? provider.pageSubdomains.map((sub) => `${sub}.${site}`) : [];
    this.composeUrl = `${this.api.protocol}//${pages[0] ?? site}/`;
    this.policy = {
      provider: provider.name,
      allowedHosts: new Set([this.api.host.toLowerCase(), site, ...pages]),
      allowLoopback: settings.allowLoopback,
      resolve: settings.resolve,
    };
  }

  async start({ record, participant, execution }: MethodContext, hints: Record<string, unknown>): Promise<MethodOutcome> {
    let expectedHandle: string | null = null;
    if (typeof hints.handle === 'string' && hints.handle.trim() !== '') {
      expectedHandle = normalizeHandle(hints.handle);
      if (!HANDLE.test(expectedHandle)) throw DomainError.invalid(['handle'], `Not a ${this.provider.name} handle`, 'invalid_handle');
    }
    const version = `${record.reference} v${execution.recordVersion}`;
    // The nonce makes each start's proof unique: an old post cannot be replayed for a new attempt.
    const proofLine = `rss-proof: ${version} ${participant.id} ${randomToken(12)}`;
    const state: ProofState = {
      proofLine,
      proofTitle: `Signature proof for ${version}`,
      proofText: `I sign record ${record.reference}, version ${execution.recordVersion}, with this ${this.provider.postNoun}.\n${proofLine}`,
      expectedHandle,
      url: null,
    };
    return { status: 'pending', step: this.stepFor(state, null), state };
  }

  /** Each provider check is counted before the step's transaction, so that refused or failed checks still count. */
  async count({ em, participant, method, action, input }: StepPreview): Promise<void> {
    if (method?.status !== 'pending') return;
    const fetches = action === 'submit' ? typeof input.url === 'string' && input.url.trim() !== '' : action === 'refresh' && typeof method.state.url === 'string';
    if (fetches) await this.rateLimiter.hit(em, `proof-fetch:${participant.id}:${this.type}`, this.settings.fetchLimit, `${this.provider.name} checks`);
  }

  async submit(context: MethodContext, input: Record<string, unknown>): Promise<MethodOutcome> {
    const state = this.pendingState(context);
    const raw = typeof input.url === 'string' ? input.url.trim() : '';
    if (!raw) throw DomainError.invalid(['url'], `Submit the URL of your public ${this.provider.postNoun}`, 'required');
    return this.check(context, state, raw);
  }

  async refresh(context: MethodContext): Promise<MethodOutcome> {
    const state = this.pendingState(context);
    if (!state.url) return { status: 'pending', step: this.stepFor(state, null) };
    return this.check(context, state, state.url);
  }

  private pendingState({ method }: MethodContext): ProofState {
    const s = method.state;
    if (method.status !== 'pending' || typeof s.proofLine !== 'string' || typeof s.proofTitle !== 'string' || typeof s.proofText !== 'string') {
      throw new DomainError('conflict', `Start the ${this.type} method first`);
    }
    return {
      proofLine: s.proofLine,
      proofTitle: s.proofTitle,
      proofText: s.proofText,
      expectedHandle: typeof s.expectedHandle === 'string' ? s.expectedHandle : null,
      url: typeof s.url === 'string' ? s.url : null,
    };
  }

  private stepFor(state: ProofState, pendingUrl: string | null): MethodStep {
    const { name, postNoun } = this.provider;
    const as = state.expectedHandle ? ` as @${state.expectedHandle}` : '';
    return {
      prompt: pendingUrl
        ? `${pendingUrl} is not visible on ${name} yet. Make sure the ${postNoun} is public and contains the proof text, then refresh.`
        : `Publish a public ${postNoun} on ${name}${as} with the proof title and the proof text exactly as given (the rss-proof line must stay unchanged), then submit its URL.`,
      proofTitle: state.proofTitle,
      proofText: state.proofText,
      url: pendingUrl ?? this.composeUrl,
      challenge: null,
    };
  }

  /** The submitted page URL, checked, and the API URL that returns that post. */
  private locate(raw: string): { page: string; api: URL } {
    let page: URL;
    try {
      page = new URL(raw);
    } catch {
      throw DomainError.invalid(['url'], 'Not a URL', 'invalid_url');
    }
    if (page.protocol !== 'https:' && !(page.protocol === 'http:' && this.settings.allowLoopback)) {
      throw DomainError.invalid(['url'], `${this.provider.name} links must use https`, 'invalid_url');
    }
    if (page.username || page.password) throw DomainError.invalid(['url'], 'Links with credentials are not accepted', 'invalid_url');
    if (!this.policy.allowedHosts.has(page.host.toLowerCase())) {
      throw DomainError.invalid(['url'], `${page.host} is not a ${this.provider.name} host`, 'foreign_host');
    }
    const path = this.provider.apiPath(page.pathname);
    if (!path) throw DomainError.invalid(['url'], `Not a link to a ${this.provider.name} ${this.provider.postNoun}`, 'invalid_url');
    return { page: `${page.origin}${page.pathname}`, api: new URL(`${this.api.pathname.replace(/\/+$/, '')}${path}`, this.api) };
  }

  private async check(context: MethodContext, state: ProofState, raw: string): Promise<MethodOutcome> {
    const { em, record, participant, execution, principal, now } = context;
    const { name, postNoun } = this.provider;
    const { page, api } = this.locate(raw);
    const response = await safeGet(api, this.policy);
    // Not there yet (or not yet public): the asynchronous path, re-checked by refresh.
    if (response.status === 404) return { status: 'pending', step: this.stepFor(state, page), state: { url: page } };
    if (response.status === 429) {
      const retryAfterSeconds = retryAfter(response.headers['retry-after'], now);
      throw new DomainError('rate_limited', `${name} is limiting requests; try again in ${retryAfterSeconds} seconds`, { retryAfterSeconds });
    }
    // Other client errors say the post is not public (deleted, private); anything else is upstream trouble.
    if (response.status >= 400 && response.status < 500) {
      throw DomainError.invalid(['url'], `${name} does not show this ${postNoun} publicly (HTTP ${response.status})`, 'post_unavailable');
    }
    if (response.status !== 200) throw new DomainError('conflict', `The ${name} API answered HTTP ${response.status}; try again later`);
    const post = this.provider.parse(parseJson(response.body));
    const author = post ? normalizeHandle(post.author) : '';
    if (!post || !author || author.length > 255) throw new DomainError('conflict', `The ${name} API answered with something that is not a ${postNoun}; try again later`);

    const lines = post.text.split(/\r\n|\r|\n/).map((line) => line.trim());
    if (!lines.includes(state.proofLine)) {
      const altered = lines.some((line) => line.startsWith('rss-proof:'));
      throw DomainError.invalid(
        ['url'],
        altered
          ? `The ${postNoun}'s rss-proof line differs from the proof text; publish it unchanged`
          : `The ${postNoun} does not contain the proof text`,
        'proof_mismatch',
      );
    }
    if (state.expectedHandle && author !== state.expectedHandle) {
      throw DomainError.invalid(['url'], `The ${postNoun} is by @${author}, not @${state.expectedHandle}`, 'handle_mismatch');
    }
    const textHash = `sha256:${sha256Hex(post.text)}`;
    await recordVerifiedContactPoint(em, this.provider.contactType, author, now, principal.identityId);
    const evidence = { method: this.type, provider: name, url: page, author, textHash, recordId: record.id, recordVersion: execution.recordVersion, participantId: participant.id };
    return { status: 'satisfied', evidence: JSON.stringify(evidence), step: null, state: { url: page, author, textHash } };
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** Retry-After in seconds or as an HTTP date; kept within a minute's default and an hour's cap. */
function retryAfter(header: string | undefined, now: Date): number {
  const seconds = header === undefined ? NaN : /^\d+$/.test(header.trim()) ? Number(header) : (Date.parse(header) - now.getTime()) / 1000;
  return Number.isFinite(seconds) ? Math.min(3600, Math.max(1, Math.ceil(seconds))) : 60;
}

export type ProofPostConfig = { codehostApiBase: string; microblogApiBase: string; forumApiBase: string; allowLoopback: boolean; fetchesPerWindow: number };

/** The three proof-post adapters, for the composition root. */
export function proofPostMethods(config: ProofPostConfig, rateLimiter: RateLimiter): ProofPostMethod[] {
  const common = { allowLoopback: config.allowLoopback, fetchLimit: { limit: config.fetchesPerWindow, windowSeconds: 600, name: 'proof_fetches' } };
  return [
    new ProofPostMethod(CODEHOST_GIST, { ...common, apiBase: config.codehostApiBase }, rateLimiter),
    new ProofPostMethod(MICROBLOG_POST, { ...common, apiBase: config.microblogApiBase }, rateLimiter),
    new ProofPostMethod(FORUM_POST, { ...common, apiBase: config.forumApiBase }, rateLimiter),
  ];
}
