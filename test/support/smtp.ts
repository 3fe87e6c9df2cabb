import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export type CapturedMail = { to: string; subject: string; text: string; raw: ParsedMail };

/** A real SMTP server on 127.0.0.1 that keeps every message it receives, parsed (each after `delayMs`, a slow server). */
export class CaptureSmtp {
  readonly messages: CapturedMail[] = [];
  private readonly waiters: (() => void)[] = [];
  constructor(private readonly options: { delayMs?: number } = {}) {}
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, _session, callback) => {
      simpleParser(stream)
        .then(async (mail) => {
          if (this.options.delayMs) await new Promise((resolve) => setTimeout(resolve, this.options.delayMs));
          const to = Array.isArray(mail.to) ? mail.to.map((a) => a.text).join(', ') : (mail.to?.text ?? '');
          this.messages.push({ to, subject: mail.subject ?? '', text: mail.text ?? '', raw: mail });
          this.waiters.splice(0).forEach((wake) => wake());
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  port = 0;

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The newest message to `address` matching `predicate`, waiting up to `timeoutMs` for it. */
  async waitFor(address: string, predicate: (mail: CapturedMail) => boolean = () => true, timeoutMs = 5000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = [...this.messages].reverse().find((mail) => mail.to.toLowerCase().includes(address.toLowerCase()) && predicate(mail));
      if (found) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no mail to ${address} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The six-digit code in the newest message to `address`. */
  async codeFor(address: string, afterCount = 0): Promise<string> {
    // Mail leaves from the outbox, so an invitation to the same address may arrive in between: wait for a code.
    const mail = await this.waitFor(address, (m) => this.messages.indexOf(m) >= afterCount && /code is \d{6}/.test(m.text));
    const match = /code is (\d{6})/.exec(mail.text);
    if (!match?.[1]) throw new Error('no code in mail');
    return match[1];
  }
}
