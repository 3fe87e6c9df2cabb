/**
 * Layer rules, enforced by lint: no import cycles, and arrows that point inward only:
 * facades (facade-rest, facade-mcp, facade-oauth) -> graph -> domain, jobs -> domain. The composition root
 * (app.ts, main.ts and composition/) may import anything; nothing else imports it. Shared with the lint fixture test
 * (test/unit/layer-rules.test.ts), which shows that a cycle and an outward import fail.
 */
import { join } from 'node:path';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const project = join(import.meta.dirname, 'tsconfig.json');

/**
 * @param {string} base absolute folder the lint runs in (the project, or a fixture)
 * @param {string} src the folder holding the layers, relative to base
 */
export function layerRules(base, src = 'src') {
  const root = [...['app.ts', 'main.ts'].map((file) => `${src}/${file}`), `${src}/composition`];
  const facades = [`${src}/facade-rest`, `${src}/facade-mcp`, `${src}/facade-oauth`];
  return {
    files: [`${src}/**/*.ts`],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true, project })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: base,
          zones: [
            { target: `${src}/domain`, from: [`${src}/graph`, ...facades, `${src}/jobs`, ...root], message: 'domain imports no outer layer' },
            { target: `${src}/graph`, from: [...facades, `${src}/jobs`, ...root], message: 'graph imports only the domain' },
            { target: `${src}/jobs`, from: [`${src}/graph`, ...facades, ...root], message: 'jobs import only the domain' },
            { target: `${src}/facade-rest`, from: [`${src}/facade-mcp`, `${src}/facade-oauth`, `${src}/jobs`, ...root], message: 'a facade imports only graph and domain' },
            { target: `${src}/facade-mcp`, from: [`${src}/facade-rest`, `${src}/facade-oauth`, `${src}/jobs`, ...root], message: 'a facade imports only graph and domain' },
            { target: `${src}/facade-oauth`, from: [`${src}/facade-rest`, `${src}/facade-mcp`, `${src}/jobs`, ...root], message: 'a facade imports only graph and domain' },
          ],
        },
      ],
    },
  };
}
