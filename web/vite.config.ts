import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web UI: React without a plugin (the bundler's own automatic JSX), built into dist/web and served by the service at `/`.
 * Two more pages share the build: the REST contract rendered by Scalar with its console to try calls (`/api/docs`) and the GraphQL explorer (`/graphql`).
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // No inline scripts anywhere: the pages run under a strict Content-Security-Policy.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    // Scalar and GraphiQL's Monaco editor are megabytes each; they load only on their own pages.
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
