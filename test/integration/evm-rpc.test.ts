import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnchorChainError } from '../../packages/verifier/src/anchoring/chain.js';
import { EvmRpc, RpcFailure } from '../../packages/verifier/src/anchoring/evm.js';
import { chainFailure } from '../../packages/verifier/src/anchoring/registry-reader.js';

/**
 * The JSON-RPC client anchoring uses (ox underneath), against a node played by a real HTTP server
 * on 127.0.0.1: what is an outage, what is the node's own answer, and that neither message carries
 * the RPC URL (a provider key often sits in its path).
 */
describe('EVM JSON-RPC client', () => {
  let server: Server;
  let base: string;
  let answer: (body: { method: string; id: number }) => { status: number; body: unknown };
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const { status, body } = answer(JSON.parse(text) as { method: string; id: number });
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const secretUrl = () => `${base}/v3/provider-key-0123456789abcdef`;

  it('reads quantities as numbers and bigints, and a missing receipt as null', async () => {
    answer = ({ method, id }) => ({
      status: 200,
      body: { jsonrpc: '2.0', id, result: method === 'eth_chainId' ? '0x7a69' : method === 'eth_blockNumber' ? '0x10' : null },
    });
    const rpc = new EvmRpc(secretUrl());
    expect(await rpc.chainId()).toBe(31337);
    expect(await rpc.blockNumber()).toBe(16n);
    expect(await rpc.receipt(`0x${'ab'.repeat(32)}`)).toBeNull();
  });

  it("takes a node's JSON-RPC error as its answer (rejected), with the node's message and not the URL", async () => {
    answer = ({ id }) => ({ status: 200, body: { jsonrpc: '2.0', id, error: { code: -32000, message: 'nonce too low' } } });
    const error = await new EvmRpc(secretUrl()).sendRawTransaction('0x02').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcFailure);
    expect((error as RpcFailure).transport).toBe(false);
    expect((error as RpcFailure).details).toContain('nonce too low');
    const failure = chainFailure(secretUrl(), 'broadcasting an anchoring', error);
    expect(failure).toBeInstanceOf(AnchorChainError);
    expect(failure.code).toBe('rejected');
    expect(failure.message).toContain('nonce too low');
    expect(failure.message).not.toContain('provider-key');
  });

  it('takes an HTTP error status and a refused connection as an outage (unreachable), without the URL', async () => {
    answer = () => ({ status: 502, body: { error: 'bad gateway' } });
    const gateway = await new EvmRpc(secretUrl()).chainId().catch((e: unknown) => e);
    expect((gateway as RpcFailure).transport).toBe(true);
    expect(chainFailure(secretUrl(), 'reading the registry', gateway).code).toBe('unreachable');

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await new EvmRpc(`http://127.0.0.1:${port}/v3/provider-key-0123456789abcdef`).chainId().catch((e: unknown) => e);
    expect((refused as RpcFailure).transport).toBe(true);
    const failure = chainFailure(`http://127.0.0.1:${port}/v3/provider-key-0123456789abcdef`, 'connecting to the chain', refused);
    expect(failure.code).toBe('unreachable');
    expect(failure.message).not.toContain('provider-key');
  });

  it('takes a node that does not answer in time as an outage', async () => {
    answer = () => ({ status: 200, body: {} });
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const error = await new EvmRpc(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, 200).chainId().catch((e: unknown) => e);
      expect((error as RpcFailure).transport).toBe(true);
      expect((error as RpcFailure).details).toMatch(/timed out/);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('takes anything else (an answer that does not decode) as rejected, not as an outage', () => {
    expect(chainFailure(secretUrl(), 'reading an anchor', new RangeError('bad data')).code).toBe('rejected');
  });
});
