import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/harness.js';

const CLI = path.resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = path.resolve('test/fixtures/mcp/conformance-expected-failures.yml');

/** Runs the official conformance suite's server scenarios against /mcp; answers its exit code and output. */
function conformance(url: string, cwd: string, options: string[] = ['--expected-failures', BASELINE]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'server', '--url', url, ...options], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance (@modelcontextprotocol/conformance, server scenarios)', () => {
  let t: TestApp;
  let results: string;

  beforeAll(async () => {
    // The default allow-list (the public base URL's host and loopback names) admits the suite's http://localhost:<port>.
    t = await startTestApp();
    results = await mkdtemp(path.join(tmpdir(), 'mcp-conformance-'));
  });
  afterAll(async () => {
    await t?.stop();
    await rm(results, { recursive: true, force: true });
  });

  it('passes every active server scenario except the listed expected failures (fixture tools this service does not have)', async () => {
    const { code, output } = await conformance(`${t.url.replace('127.0.0.1', 'localhost')}/mcp`, results);
    if (code !== 0) console.log(output);
    expect(code).toBe(0);
  }, 300_000);

  // This version keeps SSE polling and resumption (SEP-1699) among its pending scenarios (beside drafts of the
  // next protocol revision, tasks and skills, which this service does not implement): run by name, its checks
  // read one by one. The one warning is the resumption of the suite's fixture tool `test_reconnection`, which
  // this service does not have (its call answers "unknown tool"); test/e2e/mcp-resumption.test.ts resumes real answers.
  it('passes the SSE polling and resumption scenario: a priming event first, with a retry field', async () => {
    const { output } = await conformance(`${t.url.replace('127.0.0.1', 'localhost')}/mcp`, results, ['--scenario', 'server-sse-polling', '--verbose']);
    const checks = JSON.parse(output.slice(output.indexOf('['), output.lastIndexOf(']') + 1)) as { id: string; status: string }[];
    const judged = checks.filter((check) => check.status !== 'INFO');
    expect(judged.map((check) => [check.id, check.status])).toEqual([
      ['server-sse-priming-event', 'SUCCESS'],
      ['server-sse-retry-field', 'SUCCESS'],
      ['server-sse-disconnect-resume', 'WARNING'],
    ]);
  }, 300_000);
});
