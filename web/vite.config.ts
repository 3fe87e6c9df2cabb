import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Redoc's standalone bundle, rewritten to run under the docs page's CSP without tripping it (the test
 * fails on any request to another origin and on any CSP violation):
 * - its sidebar credits its vendor with a logo from the vendor's CDN: the credit shows the name drawn here;
 * - its search (FlexSearch) probes whether it may build a worker from code with `Function(...)`: the page
 *   allows no eval, so the probe is refused up front (as the CSP would) and search runs in the page.
 * Each rewrite must match: a Redoc that changed fails the build, to be looked at again.
 */
function redocUnderOwnCsp(): Plugin {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="58" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" fill="#555">Redocly</text></svg>';
  const rewrites: [RegExp, string][] = [
    [/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, `data:image/svg+xml,${encodeURIComponent(svg)}`],
    [/_factory\?\?=Function\(/g, "_factory??=(()=>{throw new EvalError('no eval under this CSP')})("],
  ];
  return {
    name: 'redoc-under-own-csp',
    transform(code, id) {
      if (!id.endsWith('redoc/bundles/redoc.standalone.js')) return null;
      let rewritten = code;
      for (const [pattern, replacement] of rewrites) {
        const next = rewritten.replaceAll(pattern, replacement);
        if (next === rewritten) this.error(`redoc.standalone.js no longer contains ${pattern}: check it against the docs page's CSP again`);
        rewritten = next;
      }
      return { code: rewritten, map: null };
    },
  };
}

/**
 * The web UI: React without a plugin (the bundler's own automatic JSX), built into dist/web and served by the service at `/`.
 * Two more pages share the build: the REST contract rendered by Redoc (`/api/docs`) and the GraphQL explorer (`/graphql`).
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [redocUnderOwnCsp()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // No inline scripts anywhere: the pages run under a strict Content-Security-Policy.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    // Redoc and GraphiQL's Monaco editor are megabytes each; they load only on their own pages.
    chunkSizeWarningLimit: 4000,
    rolldownOptions: {
      // framer-motion (in GraphiQL) marks modules "use client", which means nothing in a browser bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      input: {
        app: fileURLToPath(new URL('index.html', import.meta.url)),
        apiDocs: fileURLToPath(new URL('api-docs.html', import.meta.url)),
        graphqlExplorer: fileURLToPath(new URL('graphql-explorer.html', import.meta.url)),
      },
    },
  },
});
