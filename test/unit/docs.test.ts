import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { remark } from 'remark';
import remarkValidateLinks from 'remark-validate-links';
import { engine } from 'unified-engine';
import type { VFile } from 'vfile';
import { CONFIG_VARIABLES } from '../../src/config.js';

const repo = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(repo, file), 'utf8');
const pages = readdirSync(path.join(repo, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);

/** Every local link of these files, checked by remark-validate-links: the file exists, and so does the heading. */
async function brokenLinks(files: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    engine(
      {
        processor: remark(),
        // remark-validate-links types itself against its own copy of unified's types.
        plugins: [[remarkValidateLinks, { repository: false }]] as never,
        files,
        cwd: repo,
        extensions: ['md'],
        out: false,
        quiet: true,
        silentlyIgnore: true,
        // The report is collected from the files' messages below, not printed.
        reporter: () => '',
      },
      (error, _code, context) => {
        if (error) return reject(error);
        const files: VFile[] = context?.files ?? [];
        resolve(files.flatMap((file) => file.messages.map((message) => `${path.relative(repo, file.path)}:${message.line ?? '?'} ${message.reason}`)));
      },
    );
  });
}

describe('The documentation', () => {
  it('has no broken link: every linked file and heading exists (README and every page)', async () => {
    expect(await brokenLinks(['README.md', ...pages])).toEqual([]);
  }, 30_000);

  it('fits a newcomer on one screen: the README is under 150 lines and starts with the two commands', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThan(150);
    const firstBlock = /```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it('links every page from the README or the docs index', () => {
    const linked = `${read('README.md')}\n${read('docs/README.md').replace(/\]\((?!\.\.)/g, '](docs/')}`;
    for (const page of pages.filter((page) => page !== 'docs/README.md')) expect(linked).toContain(`](${page}`);
  });

  it('documents every environment variable the service reads, and no other (docs/configuration.md)', () => {
    const rows = read('docs/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    const documented = new Set<string>();
    const startScriptOnly = new Set<string>();
    for (const row of rows) {
      const [name, , meaning] = row.split(' | ');
      for (const variable of (name ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)) {
        // A few are read by `npm start` (V8's and glibc's settings) or the scripts, not by the service: the row says so.
        if (/not (read )?by the service|^Scripts only/.test(meaning ?? '')) startScriptOnly.add(variable[1]!);
        else documented.add(variable[1]!);
      }
    }
    expect([...CONFIG_VARIABLES].filter((variable) => !documented.has(variable))).toEqual([]);
    expect([...documented].filter((variable) => !CONFIG_VARIABLES.includes(variable))).toEqual([]);
    const scripts = `${read('package.json')}\n${readdirSync(path.join(repo, 'scripts')).map((name) => read(`scripts/${name}`)).join('\n')}`;
    expect([...startScriptOnly].filter((variable) => !scripts.includes(variable))).toEqual([]);
  });
});
