import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { openServiceDatabase } from '../support/service-database.js';

const repo = path.resolve(import.meta.dirname, '../..');

/**
 * The API process holds only what answering requests needs: the libraries of the chain, the OAuth
 * server, passkeys, the MCP facade, mail delivery, PDF layout and the MongoDB queue load at first use, and the PDF signing library
 * (@libpdf/core, with pkijs) only on render threads, which also open the seal key at start (issue
 * 11's memory goal).
 * Checked in a process of its own, where nothing else has loaded them first.
 */
describe('Libraries loaded at start', () => {
  let database: Awaited<ReturnType<typeof openServiceDatabase>>;
  beforeAll(async () => {
    database = await openServiceDatabase();
  }, 60_000);
  afterAll(async () => {
    await database.close();
  });

  it('a started service has not loaded viem, oidc-provider, @simplewebauthn, the MCP SDK, nodemailer, Apollo\'s trace protobuf, pdf-lib, fontkit, qrcode, node-forge, the MongoDB driver or the PDF signing library', async () => {
    const probe = async () => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', './test/support/child/register.mjs', 'test/support/child/loaded-packages.ts'], {
        cwd: repo,
        env: { ...process.env, DATABASE_URL: database.url },
        timeout: 60_000,
      });
      return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
    };
    // The very first development start of a checkout makes the development seal (with node-forge);
    // every later start finds it. The second start is the one measured.
    await probe();
    const loaded = await probe();
    // The probe sees the packages that are loaded (a wrong probe would see none).
    expect(loaded).toEqual(expect.arrayContaining(['express', 'graphql', '@mikro-orm/core', 'canvas']));
    // ox's keccak256 (merkle.ts, for the verification answers) is loaded at start; its chain modules
    // (JSON-RPC, ABI coding, signing: evm.ts, evm-account.ts) load with the chain's first connection.
    const lazy = ['viem', 'oidc-provider', 'koa', 'jose', '@simplewebauthn/server', 'pdf-lib', '@pdf-lib/fontkit', 'qrcode', 'node-forge', '@agendajs/mongo-backend', 'mongodb', '@libpdf/core', 'pkijs', 'asn1js', '@modelcontextprotocol/sdk', 'nodemailer', '@apollo/usage-reporting-protobuf'];
    expect(loaded.filter((name) => lazy.includes(name))).toEqual([]);
  }, 90_000);
});
