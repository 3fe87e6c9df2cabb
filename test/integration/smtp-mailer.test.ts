import { SmtpMailer } from '../../src/infrastructure/mail/nodemailer-mailer.js';
import { CaptureSmtp } from '../support/smtp.js';

/** Mail over real SMTP (a capture server on 127.0.0.1); nodemailer is loaded with the first message. */
describe('SMTP mailer', () => {
  const smtp = new CaptureSmtp();
  let url: string;
  beforeAll(async () => {
    url = await smtp.start();
  });
  afterAll(async () => {
    await smtp.stop();
  });

  it('delivers messages sent at once by a mailer that has sent nothing yet, and closes', async () => {
    const mailer = new SmtpMailer(url, 'Record signing <no-reply@sign.example.org>');
    const to = Array.from({ length: 5 }, (_, i) => `racer${i}@example.org`);
    await Promise.all(to.map((address, i) => mailer.send({ to: address, subject: `Message ${i}`, text: `Hello ${i}` })));
    for (const [i, address] of to.entries()) expect((await smtp.waitFor(address)).subject).toBe(`Message ${i}`);
    await mailer.close();
  });

  it('closes without loading anything when it never sent', async () => {
    await expect(new SmtpMailer(url, 'no-reply@sign.example.org').close()).resolves.toBeUndefined();
  });
});
