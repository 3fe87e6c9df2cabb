import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { ICON_PATH, ICON_PNG } from './brand-icon.js';
import { escapeHtml } from './facade-oauth/pages.js';
import { CACHE_CONTROL, IMMUTABLE_ASSET_MAX_AGE } from './domain/shared/cache-policy.js';

/** Client-side routes of the UI: the server answers index.html for each, the page routes itself. */
const CLIENT_ROUTES = /^\/(?:$|sign-in\/?$|keys\/?$|secret-input\/?$|verify(?:\/[^/]+)?\/?$|records\/[^/]+(?:\/sign)?\/?$|teams(?:\/[^/]+|\/invitations\/[^/]+)?\/?$|templates(?:\/[^/]+(?:\/(?:use|bulk))?)?\/?$|exports\/?$)/;

/** The REST contract rendered for people, with a console to try calls (Scalar over `/api/openapi.json`). */
const API_DOCS = '/api/docs';

/** A Host header that may appear in the CSP's connect-src (the page's own origin for graphql-ws). */
const SAFE_HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** Where `npm run build` puts the UI: dist/web, found from src/ (tests) and from dist/src/ (the built service). */
function defaultWebRoot(): string | null {
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
 * `/api/docs` (Scalar): its Vue components and CodeMirror editors write their themes into <style> elements
 * without a nonce, so this page allows inline styles (scripts stay 'self', no eval). Its console calls this
 * origin only (connect-src 'self': no proxy, no other server); no fonts from elsewhere (system fonts).
 */
const apiDocsHeaders = pageHeaders(() => ({ 'connect-src': "'self'", 'style-src': "'self' 'unsafe-inline'", 'font-src': "'self' data:" }));

/**
 * The GraphQL explorer (GraphiQL): its Monaco editor writes line positions as style attributes and
 * its theme into <style> elements without a nonce, so this page allows inline styles too (scripts
 * stay 'self'); its language workers are files under /assets; GraphiQL's fonts are data: URLs in its stylesheet.
 */
const explorerHeaders = pageHeaders(() => ({ 'style-src': "'self' 'unsafe-inline'", 'font-src': "'self' data:", 'worker-src': "'self'" }));

function notBuilt(res: Response): void {
  res.status(503).type('text/plain').send('The web UI is not built: run `npm run build`.');
}

/** A browser's navigation to /graphql: it prefers HTML to JSON and asks no query. */
function isExplorerNavigation(req: Request): boolean {
  return req.query.query === undefined && req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

/**
 * GraphiQL for a person's browser at GET /graphql: a navigation (it prefers HTML to JSON) that asks
 * no query. Every other request goes on to the GraphQL server. Mounted only while introspection is on.
 */
export function graphqlExplorer(root: string | null = defaultWebRoot()): RequestHandler {
  return (req, res, next) => {
    if (!isExplorerNavigation(req)) return next();
    explorerHeaders(req, res, () => {
      if (!root) return notBuilt(res);
      res.setHeader('Cache-Control', CACHE_CONTROL.page);
      res.sendFile(join(root, 'graphql-explorer.html'));
    });
  };
}

/** What a browser opening /graphql reads when the explorer is off: why, and how an operator turns it on. */
const EXPLORER_OFF_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>GraphQL explorer off</title></head>
<body>
<main>
<h1>The GraphQL explorer is off in this deployment</h1>
<p>This address is the service's GraphQL API: send queries and mutations to it with <code>POST /graphql</code>
(and subscriptions over graphql-ws); the schema is in the service's documentation.</p>
<p>The in-browser explorer needs schema introspection, which this deployment has turned off (the default in production).
An operator turns both on with the setting <code>GRAPHQL_INTROSPECTION=true</code>.</p>
<p>The REST API's reference, with a console to try calls, is at <a href="/api/docs">/api/docs</a>.</p>
</main>
</body>
</html>
`;

/**
 * GET /graphql from a person's browser while introspection (and so the explorer) is off: a short page
 * saying so and naming the setting, instead of GraphQL's 400 about a missing query. Every other request
 * (a client asking for JSON, or sending a query) goes on to the GraphQL server as before.
 */
export function graphqlExplorerOff(): RequestHandler {
  return (req, res, next) => {
    if (!isExplorerNavigation(req)) return next();
    securityHeaders(req, res, () => {
      res.setHeader('Cache-Control', CACHE_CONTROL.page);
      res.status(404).type('html').send(EXPLORER_OFF_HTML);
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
    res.setHeader('Cache-Control', CACHE_CONTROL.publicDay);
    res.type('png').send(ICON_PNG);
  });
  if (!root) {
    router.get(CLIENT_ROUTES, securityHeaders, (_req, res) => notBuilt(res));
    router.get(API_DOCS, apiDocsHeaders, (_req, res) => notBuilt(res));
    return router;
  }
  router.use('/assets', securityHeaders, express.static(join(root, 'assets'), { immutable: true, maxAge: IMMUTABLE_ASSET_MAX_AGE, index: false, redirect: false }));
  router.get('/favicon.svg', securityHeaders, (_req, res) => {
    res.setHeader('Cache-Control', CACHE_CONTROL.publicDay);
    res.sendFile(join(root, 'favicon.svg'));
  });
  router.get(CLIENT_ROUTES, pageHeadersWithChain, (_req, res, next) => {
    res.setHeader('Cache-Control', CACHE_CONTROL.page);
    if (!rpc) return res.sendFile(join(root, 'index.html'));
    readFile(join(root, 'index.html'), 'utf8')
      .then((html) => res.type('html').send(html.replace('</head>', `<meta name="chain-public-rpc" content="${escapeHtml(rpc.href)}"></head>`)))
      .catch(next);
  });
  router.get(API_DOCS, apiDocsHeaders, (_req, res) => {
    res.setHeader('Cache-Control', CACHE_CONTROL.page);
    res.sendFile(join(root, 'api-docs.html'));
  });
  return router;
}
