import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A transport's way to answer some requests before express: it returns false to leave a request to
 * express, or true once it has taken it, and then either answers it (with `EarlyAnswers.send`) or
 * hands it on with `toExpress` (after reading its body, say: body-limits.ts's pre-read bodies).
 */
export type EarlyHandler = (req: IncomingMessage, res: ServerResponse, toExpress: () => void) => boolean;

/** What the HTTP server offers them (composition/http.ts). */
export type EarlyAnswers = {
  register: (handler: EarlyHandler) => void;
  /** Sends an answer as express would: security headers, request id and log line, metrics count under `route`. */
  send: (req: IncomingMessage, res: ServerResponse, answer: { route: string; status: number; headers: Record<string, string | string[]>; body: Buffer }) => void;
};
