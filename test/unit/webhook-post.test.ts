import { createServer, type AddressInfo } from 'node:net';
import { postOnce, RESPONSE_READ_MAX } from '../../src/domain/webhooks/post.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// NETWORK RULE: only 127.0.0.1 is ever connected to.

const pinned = { address: '127.0.0.1', family: 4 };
const timeouts = { connectMs: 500, totalMs: 400 };

describe('postOnce', () => {
  const receiver = new WebhookReceiver();
  let port: string;

  beforeAll(async () => {
    port = new URL(await receiver.start()).port;
  });
  afterAll(() => receiver.stop());

  // The URL names a host that resolves nowhere: the connection goes to the pinned address only.
  const url = (path: string) => new URL(`http://hooks.example:${port}${path}`);

  it('posts the body to the pinned address with the URL host and its headers, and answers the status', async () => {
    receiver.answer('/in?x=1', 204);
    expect(await postOnce(url('/in?x=1'), pinned, { 'webhook-id': 'evt_1' }, '{"a":1}', timeouts)).toEqual({ status: 204 });
    expect(receiver.at('/in?x=1')).toEqual([
      expect.objectContaining({
        headers: expect.objectContaining({ host: `hooks.example:${port}`, 'webhook-id': 'evt_1', 'content-type': 'application/json', 'content-length': '7' }),
        body: '{"a":1}',
      }),
    ]);
  });

  it('keeps the status of an answer whose body is longer than it reads', async () => {
    receiver.answer('/long', { status: 200, bytes: RESPONSE_READ_MAX * 2 });
    expect(await postOnce(url('/long'), pinned, {}, '{}', timeouts)).toEqual({ status: 200 });
  });

  it('says when no answer came in time, and when the connection was refused, naming no address', async () => {
    receiver.answer('/slow', 'hang');
    expect(await postOnce(url('/slow'), pinned, {}, '{}', timeouts)).toEqual({ status: null, error: 'no answer within 0.4 s' });

    // A port nothing listens on: bound, then closed again.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await postOnce(new URL(`http://hooks.example:${free}/in`), pinned, {}, '{}', timeouts)).toEqual({ status: null, error: 'connection refused' });
  });
});
