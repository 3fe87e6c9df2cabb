/** Polls until `probe` gives a truthy value and returns it; fails after `timeoutMs` (a deadline, not a timing assertion). */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('not ready in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The answer's status, or 'waiting' while it has not come within `ms` (the request goes on). */
export async function statusWithin(answer: Promise<{ status: number }>, ms: number): Promise<number | 'waiting'> {
  return Promise.race([answer.then((response) => response.status), new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), ms))]);
}
