import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';

/**
 * The cursors subscription events carry: an event's place in the outbox (its sequence number), as
 * an opaque string. It is one AES block (the number and eight zero bytes) under a key derived from
 * SERVER_SECRET: a subscriber cannot read the service's volume from it, and a cursor it made up
 * does not decode (its zero bytes would not come back).
 */
export class EventCursors {
  private readonly key: Buffer;

  constructor(serverSecret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, 'subscription cursors', 'outbox event cursors', 32));
  }

  encode(sequence: string): string {
    const block = Buffer.alloc(16);
    block.writeBigUInt64BE(BigInt(sequence));
    // ECB on a single block is a keyed permutation of it: the block holds no more than that.
    const cipher = createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
  }

  /** The sequence number, or null for anything that is not one of our cursors. */
  decode(cursor: string): string | null {
    if (!/^[A-Za-z0-9_-]{22}$/.test(cursor)) return null;
    const decipher = createDecipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(Buffer.from(cursor, 'base64url')), decipher.final()]);
    if (!block.subarray(8).equals(Buffer.alloc(8))) return null;
    return block.readBigUInt64BE().toString();
  }
}
