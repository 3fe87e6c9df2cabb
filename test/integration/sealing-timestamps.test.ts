import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderSealedPdf } from '../../src/domain/sealing/pdf.js';
import { loadSealKey, type SealKey } from '../../src/domain/sealing/seal-key.js';
import { signSealedPdf } from '../../src/domain/sealing/sign.js';
import { poppler, sampleSealedPdfInput } from '../support/sealing.js';
import { startTimestampAuthority, type TimestampAuthorityServer } from '../support/timestamp-authority.js';

describe('Seal signature timestamps', () => {
  let workDir: string;
  let key: SealKey;
  let pdf: Uint8Array;
  const servers: TimestampAuthorityServer[] = [];
  const input = sampleSealedPdfInput();
  const sign = (tsaUrls: string[]) => signSealedPdf(pdf, key, { reason: 'Sealed', signingTime: input.sealedAt, tsaUrls, tsaTimeoutMs: 1500 });

  // id-aa-signatureTimeStampToken, as it appears hex-encoded in the signature's /Contents.
  const TIMESTAMP_ATTRIBUTE = /060b2a864886f70d010910020e/i;

  async function expectValid(bytes: Uint8Array, name: string): Promise<string> {
    const file = path.join(workDir, name);
    await writeFile(file, bytes);
    const { stdout } = await poppler('pdfsig', [file]);
    expect(stdout).toContain('Signature is Valid');
    return stdout;
  }

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'seal-tsa-'));
    key = await loadSealKey({ production: false, localDir: workDir });
    pdf = await renderSealedPdf(input);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await rm(workDir, { recursive: true, force: true });
  });

  async function start(behaviour: Parameters<typeof startTimestampAuthority>[0]): Promise<TimestampAuthorityServer> {
    const server = await startTimestampAuthority(behaviour);
    servers.push(server);
    return server;
  }

  it('moves past an authority that refuses and one that never answers, to B-LTA from the next (asked first for the document timestamp)', async () => {
    const refusing = await start('http-500');
    const silent = await start('hang');
    const working = await start('grant');
    const signed = await sign([refusing.url, silent.url, working.url]);
    expect(signed.level).toBe('B-LTA');
    expect(signed.timestampUrl).toBe(working.url);
    expect(signed.timestampFailures.map((failure) => failure.url)).toEqual([refusing.url, silent.url]);
    expect(signed.timestampFailures[0]?.reason).toContain('500');
    expect(working.granted).toBe(2);
    const report = await expectValid(signed.bytes, 'b-t.pdf');
    expect(report).toContain('ETSI.CAdES.detached');
    expect(Buffer.from(signed.bytes).toString('latin1')).toMatch(TIMESTAMP_ATTRIBUTE);
  });

  it('falls back to B-B and says so when no authority answers', async () => {
    const refusing = await start('http-500');
    const silent = await start('hang');
    const signed = await sign([refusing.url, silent.url]);
    expect(signed.level).toBe('B-B');
    expect(signed.timestampUrl).toBeNull();
    expect(signed.timestampFailures).toHaveLength(2);
    await expectValid(signed.bytes, 'b-b.pdf');
    expect(Buffer.from(signed.bytes).toString('latin1')).not.toMatch(TIMESTAMP_ATTRIBUTE);
  });

  it('also falls back when the only authority cannot be reached at all', async () => {
    const gone = await start('http-500');
    await gone.close();
    const signed = await sign([gone.url]);
    expect(signed.level).toBe('B-B');
    await expectValid(signed.bytes, 'unreachable.pdf');
  });
});
