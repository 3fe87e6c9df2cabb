import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import express, { type RequestHandler, type Response } from 'express';
import { ICON_PATH, ICON_PNG } from './brand-icon.js';
import { escapeHtml } from './facade-oauth/pages.js';

/** Client-side routes of the UI: the server answers index.html for each, the page routes itself. */
const CLIENT_ROUTES = /^\/(?:$|sign-in\/?$|keys\/?$|secret-input\/?$|verify(?:\/[^/]+)?\/?$|records\/[^/]+(?:\/sign)?\/?$)/;

/** The REST contract rendered for people (Redoc over `/api/openapi.json`). */
const API_DOCS = '/api/docs';

/** What web/api-docs.html carries in its csp-nonce meta, replaced per request. */
const NONCE_PLACEHOLDER = 'CSP_NONCE';

/** A Host header that may appear in the CSP's connect-src (the page's own origin for graphql-ws). */
const SAFE_HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** Where `npm run build` puts the UI: dist/web, found from src/ (tests) and from dist/src/ (the built service). */
export function defaultWebRoot(): string | null {
  // From src/ the build is ../dist/web; from dist/src/ it is ../web (never the sources in web/).
  const candidates = [join(import.meta.dirname, '..', 'dist', 'web'), join(import.meta.dirname, '..', 'web')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'assets'))) ?? null;
}

type Directives = Record<string, string>;

/** Every page: scripts, styles and fonts from the page's own origin only, no inline script, no framing. */
const PAGE_POLICY: Directives = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'manifest-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
};

/**
 * The pages' headers; `page` widens the policy for one page (the documentation pages' renderers).
 * connect-src names the page's own origin for graphql-ws (a Host header fit to appear there).
 */
function pageHeaders(page: (res: Response) => Directives = () => ({}), connectTo: string[] = []): RequestHandler {
  return (req, res, next) => {
    const host = req.headers.host && SAFE_HOST.test(req.headers.host) ? req.headers.host : null;
    const policy = { ...PAGE_POLICY, 'connect-src': [`'self'`, ...(host ? [`ws://${host}`, `wss://${host}`] : []), ...connectTo].join(' '), ...page(res) };
    res.setHeader('Content-Security-Policy', Object.entries(policy).map(([name, value]) => `${name} ${value}`).join('; '));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), publickey-credentials-get=(self), publickey-credentials-create=(self)');
    next();
  };
}

const securityHeaders = pageHeaders();

/**
 * `/api/docs` (Redoc): styled-components writes its styles into one <style> element, which carries
 * the nonce of the request (read from the page's csp-nonce meta); Redoc's icon font is a data: URL.
 */
const apiDocsHeaders = pageHeaders((res) => ({ 'connect-src': "'self'", 'style-src': `'self' 'nonce-${nonceOf(res)}'`, 'font-src': "'self' data:" }));

/**
 * The GraphQL explorer (GraphiQL): its Monaco editor writes line positions as style attributes and
 * its theme into <style> elements without a nonce, so this page alone allows inline styles (scripts
 * stay 'self'); its language workers are files under /assets; GraphiQL's fonts are data: URLs in its stylesheet.
 */
const explorerHeaders = pageHeaders(() => ({ 'style-src': "'self' 'unsafe-inline'", 'font-src': "'self' data:", 'worker-src': "'self'" }));

function nonceOf(res: Response): string {
  const locals = res.locals as { cspNonce?: string };
  locals.cspNonce ??= randomBytes(16).toString('base64');
  return locals.cspNonce;
}

/** A built page whose csp-nonce meta gets this request's nonce; never cached, since the nonce must not repeat. */
async function sendNoncedPage(res: Response, file: string): Promise<void> {
  const html = await readFile(file, 'utf8');
  res.setHeader('Cache-Control', 'no-store');
  res.type('html').send(html.replace(NONCE_PLACEHOLDER, nonceOf(res)));
}

function notBuilt(res: Response): void {
  res.status(503).type('text/plain').send('The web UI is not built: run `npm run build`.');
}

/**
 * GraphiQL for a person's browser at GET /graphql: a navigation (it prefers HTML to JSON) that asks
 * no query. Every other request goes on to the GraphQL server. Mounted only while introspection is on.
 */
export function graphqlExplorer(root: string | null = defaultWebRoot()): RequestHandler {
  return (req, res, next) => {
    const navigation = req.query.query === undefined && req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
    if (!navigation) return next();
    explorerHeaders(req, res, () => {
      if (!root) return notBuilt(res);
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(join(root, 'graphql-explorer.html'));
    });
  };
}

/**
 * The first-party web UI (web/, built by Vite into dist/web): hashed assets cached for a year,
 * index.html never cached, every page under a strict Content-Security-Policy (no inline script).
 * It answers only GET/HEAD of its own paths (client routes, /assets, /favicon.svg, /icon.png, /api/docs) and passes
 * everything else on, so it can sit beside the API routes whatever they catch.
 */
export function webUiRouter(root: string | null = defaultWebRoot(), options: { chainPublicRpcUrl?: string } = {}): express.Router {
  const router = express.Router();
  // The public verification page checks a record's anchor in the browser through the operator's public
  // chain node: its origin joins connect-src, and the page reads its URL from a meta element.
  const rpc = options.chainPublicRpcUrl ? new URL(options.chainPublicRpcUrl) : null;
  const pageHeadersWithChain = rpc ? pageHeaders(undefined, [rpc.origin]) : securityHeaders;
  router.get(ICON_PATH, securityHeaders, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('png').send(ICON_PNG);
  });
  if (!root) {
    router.get(CLIENT_ROUTES, securityHeaders, (_req, res) => notBuilt(res));
    router.get(API_DOCS, apiDocsHeaders, (_req, res) => notBuilt(res));
    return router;
  }
  router.use('/assets', securityHeaders, express.static(join(root, 'assets'), { immutable: true, maxAge: '365d', index: false, redirect: false }));
  router.get('/favicon.svg', securityHeaders, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.sendFile(join(root, 'favicon.svg'));
  });
  router.get(CLIENT_ROUTES, pageHeadersWithChain, (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    if (!rpc) return res.sendFile(join(root, 'index.html'));
    readFile(join(root, 'index.html'), 'utf8')
      .then((html) => res.type('html').send(html.replace('</head>', `<meta name="chain-public-rpc" content="${escapeHtml(rpc.href)}"></head>`)))
      .catch(next);
  });
  router.get(API_DOCS, apiDocsHeaders, (_req, res, next) => sendNoncedPage(res, join(root, 'api-docs.html')).catch(next));
  return router;
}
