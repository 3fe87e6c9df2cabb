import { rpc } from '../../scripts/local-chain.mjs';

describe('The embedded chain', () => {
  it('is given to the tests by with-db (CHAIN_RPC_URL) and answers as the development chain', async () => {
    const url = process.env.CHAIN_RPC_URL;
    expect(url).toMatch(/^https?:\/\//);
    // The embedded anvil has chain id 31337; a caller's own CHAIN_RPC_URL may point elsewhere.
    expect(typeof (await rpc(url!, 'eth_chainId'))).toBe('string');
  });
});
