/**
 * Layer rules, enforced by lint: no import cycles, and arrows that point inward only:
 * facades (facade-rest, facade-mcp, facade-oauth) -> graph -> domain, jobs -> domain, infrastructure -> domain.
 * The composition root (app.ts, main.ts and composition/) may import anything; nothing else imports it. Only the
 * root and jobs (the queue's pool) import infrastructure. The domain names no server, transport or driver package:
 * it reaches PostgreSQL through the ORM and the ports of domain/shared/sql.ts. Shared with the lint fixture test
 * (test/unit/layer-rules.test.ts), which shows that a cycle, an outward import and a driver in the domain fail.
 */
import { join } from 'node:path';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const project = join(import.meta.dirname, 'tsconfig.json');

/** Packages the domain does not import: servers and transports, and the drivers behind its ports. */
const OUTSIDE_DOMAIN = {
  http: ['node:http', 'node:https', 'node:http2', 'http', 'https', 'http2'],
  others: [
    ...['express', '@as-integrations/*', 'helmet', 'ws', 'graphql', 'graphql-ws', 'graphql-jit', 'type-graphql', '@apollo/*'],
    ...['openapi-backend', 'oidc-provider', '@modelcontextprotocol/*'],
    ...['pg', 'kysely', 'mongodb', 'agenda', '@agendajs/*', 'nodemailer'],
  ],
};

/**
 * A regular expression for these package names (`*` one path segment), each with its subpaths.
 * @param {string[]} names
 */
function packagesPattern(names) {
  const alternatives = names.map((name) => name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '[^/]+'));
  return `^(${alternatives.join('|')})(/.*)?$`;
}

/**
 * Static and dynamic imports of these packages fail, type-only ones included.
 * @param {string[]} names
 * @param {string} message
 */
function forbiddenPackages(names, message) {
  const pattern = packagesPattern(names);
  return {
    'no-restricted-imports': ['error', { patterns: [{ regex: pattern, message }] }],
    // A selector's regular expression holds no `/`: written as \x2F.
    'no-restricted-syntax': ['error', { selector: `ImportExpression[source.value=/${pattern.replaceAll('/', '\\x2F')}/]`, message }],
  };
}

/**
 * @param {string} base absolute folder the lint runs in (the project, or a fixture)
 * @param {string} src the folder holding the layers, relative to base
 */
export function layerRules(base, src = 'src') {
  const root = [...['app.ts', 'main.ts'].map((file) => `${src}/${file}`), `${src}/composition`];
  const facades = [`${src}/facade-rest`, `${src}/facade-mcp`, `${src}/facade-oauth`];
  const infrastructure = `${src}/infrastructure`;
  const message = 'the domain names no server, transport or driver package (infrastructure provides them through a port)';
  return [
    {
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
              { target: `${src}/domain`, from: [`${src}/graph`, ...facades, `${src}/jobs`, ...root, infrastructure], message: 'domain imports no outer layer and no infrastructure' },
              { target: infrastructure, from: [`${src}/graph`, ...facades, `${src}/jobs`, ...root], message: 'infrastructure imports only the domain' },
              { target: `${src}/graph`, from: [...facades, `${src}/jobs`, ...root, infrastructure], message: 'graph imports only the domain' },
              { target: `${src}/jobs`, from: [`${src}/graph`, ...facades, ...root], message: 'jobs import only the domain and infrastructure' },
              { target: `${src}/facade-rest`, from: [`${src}/facade-mcp`, `${src}/facade-oauth`, `${src}/jobs`, ...root, infrastructure], message: 'a facade imports only graph and domain' },
              { target: `${src}/facade-mcp`, from: [`${src}/facade-rest`, `${src}/facade-oauth`, `${src}/jobs`, ...root, infrastructure], message: 'a facade imports only graph and domain' },
              { target: `${src}/facade-oauth`, from: [`${src}/facade-rest`, `${src}/facade-mcp`, `${src}/jobs`, ...root, infrastructure], message: 'a facade imports only graph and domain' },
            ],
          },
        ],
      },
    },
    {
      files: [`${src}/domain/**/*.ts`],
      rules: forbiddenPackages([...OUTSIDE_DOMAIN.http, ...OUTSIDE_DOMAIN.others], message),
    },
    {
      // The one outbound-HTTP module connects only to the address it has checked (no second resolution a DNS
      // rebind could change), so the client lives with the address rules the domain's webhooks and proof posts obey.
      files: [`${src}/domain/shared/outbound-http.ts`],
      rules: forbiddenPackages(OUTSIDE_DOMAIN.others, message),
    },
  ];
}
