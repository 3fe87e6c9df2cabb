import type { TestApp } from './harness.js';

/** Runs the email_otp ceremony for the caller on a record and finalizes; returns the finalize response. */
export async function signWithEmailOtp(t: TestApp, token: string, email: string, record: string, body: Record<string, unknown> = {}) {
  const path = `/api/v1/agreements/${record}/signature-execution`;
  const started = await t.request('POST', path, { token });
  if (started.status !== 200) throw new Error(`start execution: ${started.status} ${JSON.stringify(started.body)}`);
  const before = t.smtp.messages.length;
  const method = await t.request('POST', `${path}/methods/email_otp/start`, { token, body: {} });
  if (method.status !== 200) throw new Error(`start email_otp: ${method.status} ${JSON.stringify(method.body)}`);
  const mail = await t.smtp.waitFor(email, (m) => t.smtp.messages.indexOf(m) >= before && m.subject === 'Your signature code');
  const code = /code is (\d{6})/.exec(mail.text)![1]!;
  const submitted = await t.request('POST', `${path}/methods/email_otp/submit`, { token, body: { code } });
  if (submitted.status !== 200) throw new Error(`submit email_otp: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return t.request('POST', `${path}/finalize`, { token, body });
}
