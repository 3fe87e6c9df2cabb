import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { MailMessage, Mailer } from '../../domain/mail/mailer.js';
import { madeOnFirstUse } from '../../domain/shared/first-use.js';

/** nodemailer (some 650 KB of code) loads with the first message, not with the service. */
const nodemailer = madeOnFirstUse(async () => (await import('nodemailer')).default);

/** Sends mail over SMTP (SMTP_URL). */
export class SmtpMailer implements Mailer {
  private created: Transporter | null = null;
  /** Made with the first message: one transport, however many messages race for it. */
  private readonly transport = madeOnFirstUse(
    async () =>
      // A server that accepts and then goes silent must fail a send in seconds, not hold its caller for minutes.
      (this.created = (await nodemailer()).createTransport({ url: this.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 })),
  );

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<void> {
    await (await this.transport()).sendMail({ from: this.from, ...message });
  }

  async close(): Promise<void> {
    this.created?.close();
  }
}

/**
 * Development delivery without an SMTP server: each message becomes an .eml file in the outbox
 * folder (MAIL_OUTBOX_DIR), which any mail client or `cat` can read. Never the log.
 */
export class OutboxMailer implements Mailer {
  private readonly transport = madeOnFirstUse(async () => (await nodemailer()).createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));

  constructor(
    private readonly dir: string,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const info = await (await this.transport()).sendMail({ from: this.from, ...message });
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = path.join(this.dir, `${stamp}-${message.to.replace(/[^a-z0-9@._-]/gi, '_')}.eml`);
    // Written aside, then renamed: a reader of the folder never sees half a message.
    await writeFile(`${file}.partial`, info.message as Buffer, { mode: 0o600 });
    await rename(`${file}.partial`, file);
  }
}
