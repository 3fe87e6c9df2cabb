import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Request, type Response, type NextFunction } from 'express';

/** Client-side routes of the UI: the server answers index.html for each, the page routes itself. */
const CLIENT_ROUTES = /^\/(?:$|sign-in\/?$|keys\/?$|verify(?:\/[^/]+)?\/?$|records\/[^/]+(?:\/sign)?\/?$)/;

/** A Host header that may appear in the CSP's connect-src (the page's own origin for graphql-ws). */
const SAFE_HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** Where `npm run build` puts the UI: dist/web, found from src/ (tests) and from dist/src/ (the built service). */
export function defaultWebRoot(): string | null {
  // From src/ the build is ../dist/web; from dist/src/ it is ../web (never the sources in web/).
  const candidates = [join(import.meta.dirname, '..', 'dist', 'web'), join(import.meta.dirname, '..', 'web')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'assets'))) ?? null;
}

function securityHeaders(req: Request, res: Response, next: NextFunction): void {
  const host = req.headers.host && SAFE_HOST.test(req.headers.host) ? req.headers.host : null;
  const sockets = host ? ` ws://${host} wss://${host}` : '';
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "font-src 'self'",
      `connect-src 'self'${sockets}`,
      "manifest-src 'self'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), publickey-credentials-get=(self), publickey-credentials-create=(self)');
  next();
}

/**
 * The first-party web UI (web/, built by Vite into dist/web): hashed assets cached for a year,
 * index.html never cached, every page under a strict Content-Security-Policy (no inline script).
 * It answers only GET/HEAD of its own paths (client routes, /assets, /favicon.svg) and passes
 * everything else on, so it can sit beside the API routes whatever they catch.
 */
export function webUiRouter(root: string | null = defaultWebRoot()): express.Router {
  const router = express.Router();
  if (!root) {
    router.get(CLIENT_ROUTES, securityHeaders, (_req, res) => {
      res.status(503).type('text/plain').send('The web UI is not built: run `npm run build`.');
    });
    return router;
  }
  router.use('/assets', securityHeaders, express.static(join(root, 'assets'), { immutable: true, maxAge: '365d', index: false, redirect: false }));
  router.get('/favicon.svg', securityHeaders, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.sendFile(join(root, 'favicon.svg'));
  });
  router.get(CLIENT_ROUTES, securityHeaders, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(join(root, 'index.html'));
  });
  return router;
}
