import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProviderKind = 'codehost' | 'microblog' | 'forum';

type Post = { id: string; author: string; text: string };
type Answer = { status: number; headers?: Record<string, string>; body?: string };

/**
 * A real HTTP server on 127.0.0.1 that plays one proof-post provider's API, in the shape of the
 * real thing: gists (GitHub-like), microblog statuses (Mastodon-like, HTML content) and forum posts
 * (Discourse-like, raw markdown). Tests publish posts on it and read the page URL a signer would paste.
 */
export class ProviderServer {
  base = '';
  /** API paths requested so far, in order. */
  readonly requests: string[] = [];
  private readonly posts = new Map<string, Post>();
  private readonly answers = new Map<string, Answer>();
  private readonly server: Server = createServer((req, res) => this.handle(req, res));
  private sequence = 100;

  constructor(readonly kind: ProviderKind) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.base;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Publishes a public post now; returns the page URL its author would share. */
  publish(author: string, text: string): string {
    const { id, url } = this.reserve(author);
    this.publishAt(id, author, text);
    return url;
  }

  /** A page URL for a post that is not visible yet: the API answers 404 until `publishAt`. */
  reserve(author: string): { id: string; url: string } {
    this.sequence += 1;
    const id = this.kind === 'codehost' ? randomBytes(10).toString('hex') : String(this.sequence);
    const url =
      this.kind === 'codehost' ? `${this.base}/${author}/${id}` : this.kind === 'microblog' ? `${this.base}/@${author}/${id}` : `${this.base}/p/${id}`;
    return { id, url };
  }

  publishAt(id: string, author: string, text: string): void {
    this.posts.set(id, { id, author, text });
  }

  /** Makes the API answer for this post with a fixed status and headers (a redirect, an outage). */
  answer(id: string, answer: Answer): void {
    this.answers.set(id, answer);
  }

  /** The API URL of a post (a redirect target on the provider's own host). */
  apiUrl(id: string): string {
    return `${this.base}${this.kind === 'codehost' ? `/gists/${id}` : this.kind === 'microblog' ? `/api/v1/statuses/${id}` : `/posts/${id}.json`}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    this.requests.push(path);
    const id = this.postId(path);
    const fixed = id ? this.answers.get(id) : undefined;
    if (fixed) {
      res.writeHead(fixed.status, { 'content-type': 'application/json', ...fixed.headers });
      res.end(fixed.body ?? '{}');
      return;
    }
    const post = id ? this.posts.get(id) : undefined;
    if (req.method !== 'GET' || !post) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not Found' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(this.render(post)));
  }

  private postId(path: string): string | null {
    const patterns: Record<ProviderKind, RegExp[]> = {
      codehost: [/^\/gists\/([0-9a-f]+)$/],
      microblog: [/^\/api\/v1\/statuses\/(\d+)$/],
      // Topic links: in this fake each post opens its own topic, so post 1 of topic N is post N.
      forum: [/^\/posts\/(\d+)\.json$/, /^\/posts\/by_number\/(\d+)\/1\.json$/],
    };
    for (const pattern of patterns[this.kind]) {
      const match = pattern.exec(path);
      if (match) return match[1]!;
    }
    return null;
  }

  private render(post: Post): Record<string, unknown> {
    switch (this.kind) {
      case 'codehost':
        return {
          id: post.id,
          html_url: `${this.base}/${post.author}/${post.id}`,
          public: true,
          owner: { login: post.author, type: 'User' },
          files: { 'signature-proof.md': { filename: 'signature-proof.md', type: 'text/markdown', truncated: false, content: post.text } },
        };
      case 'microblog':
        return {
          id: post.id,
          url: `${this.base}/@${post.author}/${post.id}`,
          visibility: 'public',
          content: toHtml(post.text),
          account: { id: '1', username: post.author, acct: post.author },
        };
      case 'forum':
        return { id: Number(post.id), topic_id: Number(post.id), post_number: 1, username: post.author, raw: post.text, cooked: toHtml(post.text) };
    }
  }
}

/** Paragraphs and line breaks as microblog servers render them. */
function toHtml(text: string): string {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${paragraph.split('\n').map(escape).join('<br />')}</p>`)
    .join('');
}

/** The three providers, started. */
export async function startProviders(): Promise<Record<ProviderKind, ProviderServer>> {
  const providers = { codehost: new ProviderServer('codehost'), microblog: new ProviderServer('microblog'), forum: new ProviderServer('forum') };
  await Promise.all(Object.values(providers).map((p) => p.start()));
  return providers;
}

/**
 * The messenger platform's bot API on 127.0.0.1: records every sendMessage call (path and JSON body)
 * and answers ok, or first the `failures` given (status and body), one a call.
 */
export async function startMessengerPlatform(failures: { status: number; body: string }[] = []) {
  const sent: { path: string; body: { chat_id: string; text: string } }[] = [];
  const refused: string[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const failure = failures.shift();
      if (failure) {
        refused.push(req.url ?? '');
        res.writeHead(failure.status, { 'content-type': 'application/json' }).end(failure.body);
        return;
      }
      sent.push({ path: req.url ?? '', body: JSON.parse(raw || '{}') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { sent, refused, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
