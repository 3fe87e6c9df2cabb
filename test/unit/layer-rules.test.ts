import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
// @ts-expect-error -- the shared flat-config fragment is plain JavaScript without declarations
import { layerRules } from '../../eslint.layers.js';

const fixture = resolve('test/fixtures/layers');

async function lintFixture(): Promise<Record<string, string[]>> {
  const eslint = new ESLint({
    cwd: fixture,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layerRules(fixture)],
  });
  const results = await eslint.lintFiles(['src/**/*.ts']);
  return Object.fromEntries(
    results.map((result) => [relative(fixture, result.filePath), result.messages.map((message) => message.ruleId ?? message.message)]),
  );
}

/** Relative imports of every file under `folder`, type-only ones included. */
function importGraph(folder: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts')) {
        const source = readFileSync(path, 'utf8');
        const targets = [...source.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/gs)].map((match) =>
          resolve(dirname(path), match[1]!).replace(/\.js$/, '.ts'),
        );
        graph.set(path, targets);
      }
    }
  };
  walk(folder);
  return graph;
}

function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('Layer rules', () => {
  it('lint refuses an import cycle and imports that point outward, and accepts inward ones', async () => {
    const messages = await lintFixture();
    expect(messages['src/domain/a.ts']).toContain('import-x/no-cycle');
    expect(messages['src/domain/b.ts']).toContain('import-x/no-cycle');
    expect(messages['src/domain/outward.ts']).toEqual(['import-x/no-restricted-paths']);
    expect(messages['src/jobs/outward.ts']).toEqual(['import-x/no-restricted-paths']);
    expect(messages['src/jobs/inward.ts']).toEqual([]);
    expect(messages['src/graph/resolver.ts']).toEqual([]);
  }, 60_000);

  it('lint keeps infrastructure out of the domain: no import of it, no driver package, and only jobs and the root use it', async () => {
    const messages = await lintFixture();
    expect(messages['src/domain/uses-infrastructure.ts']).toEqual(['import-x/no-restricted-paths']);
    expect(messages['src/domain/driver.ts']).toEqual(['no-restricted-imports', 'no-restricted-syntax']);
    expect(messages['src/graph/uses-infrastructure.ts']).toEqual(['import-x/no-restricted-paths']);
    expect(messages['src/infrastructure/outward.ts']).toEqual(['import-x/no-restricted-paths']);
    expect(messages['src/infrastructure/store.ts']).toEqual([]);
    expect(messages['src/jobs/queue.ts']).toEqual([]);
  }, 60_000);

  it('finds the fixture cycle with type imports counted too', () => {
    expect(findCycle(importGraph(join(fixture, 'src')))).not.toBeNull();
  });

  it('the service has no import cycle, type-only imports included (lint ignores those)', () => {
    const cycle = findCycle(importGraph(resolve('src')));
    expect(cycle?.map((path) => relative(resolve('src'), path)) ?? null).toBeNull();
  });
});
