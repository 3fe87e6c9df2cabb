import fs from 'node:fs';
import path from 'node:path';

const PACKAGE = 'packages/verifier';

/** Every module an entry point loads, following relative imports; and the bare specifiers they import. */
function importGraph(...entries: string[]): { files: string[]; specifiers: string[] } {
  const files = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = fs.readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else specifiers.add(specifier);
    }
  };
  for (const entry of entries) visit(path.resolve(entry));
  return { files: [...files].map((f) => path.relative(process.cwd(), f)), specifiers: [...specifiers] };
}

/** The npm package a bare specifier names ('@scope/name/sub' -> '@scope/name', 'name/sub' -> 'name'). */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

describe('record-verify, the package packages/verifier', () => {
  const manifest = JSON.parse(fs.readFileSync(`${PACKAGE}/package.json`, 'utf8')) as {
    bin: Record<string, string>;
    exports: Record<string, { import: string } | string>;
    dependencies: Record<string, string>;
  };
  const root = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> };
  const entries = [`${PACKAGE}/src/cli.ts`, `${PACKAGE}/src/index.ts`, `${PACKAGE}/src/manifest.ts`];

  it('loads nothing outside its folder: not the database, the service config or the service itself', () => {
    const { files, specifiers } = importGraph(...entries);
    expect(files.filter((f) => !f.startsWith(`${PACKAGE}/src/`))).toEqual([]);
    expect(specifiers.filter((p) => /mikro-orm|^pg$|agenda|express|apollo|graphql|kysely/.test(p))).toEqual([]);
  });

  it('declares exactly the npm packages its source imports, at the versions the service uses', () => {
    const { specifiers } = importGraph(...entries);
    const imported = [...new Set(specifiers.filter((s) => !s.startsWith('node:')).map(packageOf))].sort();
    expect(Object.keys(manifest.dependencies).sort()).toEqual(imported);
    for (const [name, version] of Object.entries(manifest.dependencies)) expect([name, version]).toEqual([name, root.dependencies[name]]);
  });

  it('bundles for the browser: the check the web UI runs (verify.ts) imports no Node built-in', () => {
    expect(importGraph(`${PACKAGE}/src/verify.ts`).specifiers.filter((s) => s.startsWith('node:'))).toEqual([]);
  });

  it('is the one source: the service and the web UI import it from packages/verifier/src, and its bins point at its cli', () => {
    const web = fs.readFileSync('web/src/pages/verify-here.tsx', 'utf8');
    expect(web).toContain("import('../../../packages/verifier/src/verify.js')");
    expect(manifest.bin['record-verify']).toBe('./dist/cli.js');
    expect(root.bin['record-verify']).toBe(`dist/${PACKAGE}/src/cli.js`);
  });
});
