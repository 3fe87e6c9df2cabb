import { Writable } from 'node:stream';
import { createLogger, safeUrl } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../support/harness.js';

const KEY = 'rss_key_AbCdEf0123456789AbCdEf0123456789AbCdEf01234';
const TOKEN = 'rss_at_ZyXw9876543210ZyXw9876543210ZyXw9876543210';

function captured(): { lines: () => string; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { lines: () => chunks.join(''), stream };
}

describe('Secrets in logged URLs', () => {
  it.each([
    [`/api/v1/identity/agreements?api_key=${KEY}`, KEY],
    [`/api/v1/identity/agreements?apikey=x&API_KEY=${KEY}`, KEY],
    [`/x?access_token=${TOKEN}`, TOKEN],
    ['/x?ticket=tkt_secret_value_123', 'tkt_secret_value_123'],
    ['/x?password=hunter2hunter2', 'hunter2hunter2'],
    ['/x?client_secret=s3cr3t-s3cr3t', 's3cr3t-s3cr3t'],
    ['/x?refresh_token=r3fr3sh-r3fr3sh', 'r3fr3sh-r3fr3sh'],
    ['/x?otp=123456&code=654321', '654321'],
    [`/x?q=${KEY}`, KEY],
    [`/x/${TOKEN}/y`, TOKEN],
    ['/bot1234567890:AAAbbbCCCdddEEE/sendMessage', '1234567890:AAAbbbCCCdddEEE'],
  ])('redacts %s', (url, secret) => {
    expect(safeUrl(url)).not.toContain(secret);
  });

  it('keeps harmless parameters readable', () => {
    expect(safeUrl('/api/v1/identity/agreements?limit=10&offset=20&status=draft')).toBe('/api/v1/identity/agreements?limit=10&offset=20&status=draft');
  });

  it('redacts URL fields of any log line, not only the request serializer', () => {
    const sink = captured();
    const logger = createLogger('info', sink.stream);
    logger.warn({ url: `https://api.example/send?api_key=${KEY}`, upstream: { href: `https://x.example/?token=${TOKEN}` } }, 'call failed');
    expect(sink.lines()).toContain('call failed');
    expect(sink.lines()).not.toContain(KEY);
    expect(sink.lines()).not.toContain(TOKEN);
  });

  describe('over HTTP', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(async () => {
      await t.stop();
    });

    it('a key in the query string of a refused request never reaches the log', async () => {
      const response = await fetch(`${t.url}/api/v1/identity/agreements?api_key=${KEY}`, { headers: { 'x-api-key': KEY } });
      expect(response.status).toBe(401);
      expect(t.logs()).toContain('/api/v1/identity/agreements');
      expect(t.logs()).not.toContain(KEY);
    });
  });
});
