import pg from 'pg';
import { createPublicClient, http } from 'viem';
import { ANCHORING_LOCK, AnchoringService } from '../../src/domain/anchoring/anchoring-service.js';
import { AnchorChainError, type AnchorChain } from '../../packages/verifier/src/anchoring/chain.js';
import { hashToBytes32 } from '../../packages/verifier/src/anchoring/merkle.js';
import { DEVELOPMENT_SIGNER_KEY, EvmAnchorChain } from '../../src/domain/anchoring/evm-chain.js';
import { privateKeyToAccount } from 'viem/accounts';
import { startPrivateChain, type PrivateChain } from '../support/chain.js';
import { ManualClock } from '../support/clock.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';

describe('Anchoring on a real local chain', () => {
  let chain: PrivateChain;
  let t: TestApp;
  let db: pg.Client;
  const clock = new ManualClock();
  let anchoring: AnchoringService;
  let adapter: EvmAnchorChain;

  beforeAll(async () => {
    chain = await startPrivateChain();
    t = await startTestApp({ CHAIN_RPC_URL: chain.url, LOCAL_STATE_DIR: chain.dir }, { clock });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    anchoring = t.app.services.anchoring!;
    adapter = await EvmAnchorChain.connect({ rpcUrl: chain.url, signerKey: DEVELOPMENT_SIGNER_KEY, addressFile: `${chain.dir}/chain/registry.json` });
  }, 60_000);
  afterAll(async () => {
    await db.end();
    await t.stop();
    await chain.destroy();
  });

  const record = async (id: string, token: string) => (await t.request('GET', `/api/v1/agreements/${id}`, { token })).body;

  it('a sealed agreement reaches blockchain.status confirmed, and the transaction read back carries its metadata_hash', async () => {
    const sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'a1@example.com', party: 'b1@example.com' });
    expect((await record(sealed.id, sealed.initiator)).blockchain.status).toBe('pending');
    await anchoring.settle();
    const { blockchain } = await record(sealed.id, sealed.initiator);
    expect(blockchain).toMatchObject({ status: 'confirmed', network: 'local-development', tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), block_number: expect.any(Number), retry_count: 0 });
    expect(blockchain.written_at).toEqual(expect.any(String));
    const tx = await adapter.readAnchorTransaction(blockchain.tx_hash);
    expect(tx?.anchored.flatMap((b) => b.leaves.map((l) => l.hash))).toContain(hashToBytes32(blockchain.metadata_hash));
    // The seal named the chain and registry it is anchored on, so an offline verifier needs only an RPC.
    const { rows } = await db.query('select metadata from record_seals where record_id = $1', [sealed.id]);
    expect(JSON.parse(rows[0].metadata).anchor).toEqual({ network: 'local-development', chain_id: 31337, registry_address: adapter.registryAddress });
  });

  it('the chain stopped: retrying with growing next_retry_at, then confirmed once back, with exactly one anchoring', async () => {
    const sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'a2@example.com', party: 'b2@example.com' });
    await chain.stop();
    await anchoring.tick();
    const first = (await record(sealed.id, sealed.initiator)).blockchain;
    expect(first).toMatchObject({ status: 'retrying', retry_count: 1 });
    await anchoring.tick(); // not due yet: nothing changes
    expect((await record(sealed.id, sealed.initiator)).blockchain.retry_count).toBe(1);
    clock.advance(60_000);
    await anchoring.tick();
    const second = (await record(sealed.id, sealed.initiator)).blockchain;
    expect(second.retry_count).toBe(2);
    expect(new Date(second.next_retry_at).getTime() - clock.now().getTime()).toBeGreaterThan(new Date(first.next_retry_at).getTime() - (clock.now().getTime() - 60_000));
    expect(t.logs()).not.toContain(DEVELOPMENT_SIGNER_KEY.slice(2));
    // Verification by transaction cannot be decided while the chain is down: 503 with a Retry-After, never "no match".
    const down = await t.request('POST', `/api/v1/public/verify/${sealed.reference}`, { body: { tx_hash: `0x${'ab'.repeat(32)}` } });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ error_code: 'unavailable' });
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);

    await chain.start();
    // Back: the next due pass anchors it. A node that has just restarted may refuse the first send
    // (one more retry, due a few seconds later), so passes follow until it is confirmed.
    let done = (await record(sealed.id, sealed.initiator)).blockchain;
    for (let pass = 0; pass < 10 && done.status !== 'confirmed'; pass += 1) {
      clock.advance(60_000);
      await anchoring.settle();
      done = (await record(sealed.id, sealed.initiator)).blockchain;
      if (done.status !== 'confirmed') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(done.status).toBe('confirmed');
    const found = await adapter.findAnchor(hashToBytes32(done.metadata_hash));
    expect(found?.txHash).toBe(done.tx_hash);
    await expect(anchoringsOf(done.metadata_hash)).resolves.toBe(1);
  }, 60_000);

  it('a crash right after the broadcast never produces a second transaction', async () => {
    const sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'a3@example.com', party: 'b3@example.com' });
    const client = createPublicClient({ transport: http(chain.url) });
    const signer = privateKeyToAccount(DEVELOPMENT_SIGNER_KEY).address;
    const nonceBefore = await client.getTransactionCount({ address: signer });
    // An instance whose process "dies" right after it broadcast: it never learns the outcome.
    const real = adapter;
    const dying: AnchorChain = Object.assign(Object.create(real) as AnchorChain, {
      broadcast: async (raw: `0x${string}`) => {
        await real.broadcast(raw);
        throw new AnchorChainError('unreachable', 'the process died after broadcasting');
      },
      prepareBatch: real.prepareBatch.bind(real),
      networkName: real.networkName.bind(real),
      confirmation: real.confirmation.bind(real),
    });
    const crashed = new AnchoringService({
      orm: t.app.orm,
      chain: async () => dying,
      events: { write: async () => undefined, committed: () => undefined },
      clock,
      logger: t.app.logger,
      settings: { batchMax: 10, retryMaxSeconds: 60 },
    });
    await crashed.tick();
    clock.advance(120_000);
    await anchoring.settle();
    const done = (await record(sealed.id, sealed.initiator)).blockchain;
    expect(done.status).toBe('confirmed');
    expect(await client.getTransactionCount({ address: signer })).toBe(nonceBefore + 1);
    await expect(anchoringsOf(done.metadata_hash)).resolves.toBe(1);
  }, 60_000);

  it('passes running at once take turns, and each gives the anchoring lock back (no lock outlives its pass)', async () => {
    const sealed = await Promise.all([
      sealTwoPartyAgreement(t, {}, { initiator: 'l1@example.com', party: 'm1@example.com' }),
      sealTwoPartyAgreement(t, {}, { initiator: 'l2@example.com', party: 'm2@example.com' }),
    ]);
    // Passes at once with other work on the same pool: the lock is taken and given back on one connection.
    await Promise.all([...Array.from({ length: 4 }, () => anchoring.settle()), ...sealed.map((s) => record(s.id, s.initiator))]);
    await anchoring.settle();
    for (const s of sealed) expect((await record(s.id, s.initiator)).blockchain.status).toBe('confirmed');
    const { rows } = await db.query(`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = $1`, [ANCHORING_LOCK]);
    expect(rows[0].n).toBe(0);
  });

  it('a second service instance (a restart) still verifies an earlier tx_hash against the chain', async () => {
    // That the chain itself keeps its state across an anvil restart is test/integration/anchor-chain.test.ts.
    const { rows } = await db.query(`select b.tx_hash, r.reference from anchor_batches b join record_seals s on s.anchor_batch_id = b.id join records r on r.id = s.record_id where b.status = 'confirmed' limit 1`);
    const restarted = await startTestApp({ CHAIN_RPC_URL: chain.url, LOCAL_STATE_DIR: chain.dir }, { sameDatabaseAs: t });
    try {
      const verified = await restarted.request('POST', `/api/v1/public/verify/${rows[0].reference}`, { body: { tx_hash: rows[0].tx_hash } });
      expect(verified.body).toMatchObject({ verdict: 'verified', match_method: 'tx_hash' });
    } finally {
      await restarted.stop();
    }
  }, 60_000);

  async function anchoringsOf(metadataHash: string): Promise<number> {
    const { rows } = await db.query(`select count(*)::int as n from anchor_batches where status = 'confirmed' and leaves::jsonb ? $1`, [hashToBytes32(metadataHash)]);
    const found = await adapter.findAnchor(hashToBytes32(metadataHash));
    return found ? rows[0].n : 0;
  }
});
