/**
 * The anchoring account's EIP-1559 signing, on ox's modules. It is the service's alone: the verifier
 * package (packages/verifier, with the read side in evm.ts) never holds a key.
 */
import * as Address from 'ox/Address';
import * as Hash from 'ox/Hash';
import * as Secp256k1 from 'ox/Secp256k1';
import * as TxEnvelopeEip1559 from 'ox/TxEnvelopeEip1559';
import type { Hex } from '../../../packages/verifier/src/anchoring/chain.js';

/** A signing account: the key stays inside this object. */
export type EvmAccount = {
  address: Hex;
  signTransaction(transaction: { chainId: number; to?: Hex; data: Hex; nonce: number; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): Hex;
};

/** The account of a 32-byte hex private key; throws on anything else. */
export function privateKeyAccount(privateKey: Hex): EvmAccount {
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new Error('not a 32-byte hex private key');
  const address: Hex = Address.checksum(Address.fromPublicKey(Secp256k1.getPublicKey({ privateKey })));
  return {
    address,
    signTransaction({ nonce, ...fields }) {
      const envelope = TxEnvelopeEip1559.from({ ...fields, nonce: BigInt(nonce) });
      const signature = Secp256k1.sign({ payload: TxEnvelopeEip1559.getSignPayload(envelope), privateKey });
      return TxEnvelopeEip1559.serialize(envelope, { signature });
    },
  };
}

/** A signed transaction's hash. */
export const keccak256 = (value: Hex): Hex => Hash.keccak256(value);
