import fs from 'node:fs';
import path from 'node:path';

/** Every module the verifier loads, following relative imports from its entry point. */
function importGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = fs.readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)) {
      if (!specifier) continue;
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  };
  visit(path.resolve(entry));
  return { files: [...files].map((f) => path.relative(process.cwd(), f)), packages: [...packages] };
}

describe('record-verify', () => {
  it('loads nothing that needs the database, the service config or the service itself', () => {
    const { files, packages } = importGraph('src/verifier/cli.ts');
    expect(files.every((f) => f.startsWith('src/verifier/') || f.startsWith('src/domain/anchoring/'))).toBe(true);
    expect(files).not.toContain('src/config.ts');
    expect(files.filter((f) => f.startsWith('src/domain/anchoring/')).sort()).toEqual([
      'src/domain/anchoring/chain.ts',
      'src/domain/anchoring/evm.ts',
      'src/domain/anchoring/merkle.ts',
      'src/domain/anchoring/registry-artifact.ts',
      'src/domain/anchoring/registry-reader.ts',
    ]);
    expect(packages.filter((p) => /mikro-orm|^pg$|agenda|express|apollo|graphql/.test(p))).toEqual([]);
  });
});
