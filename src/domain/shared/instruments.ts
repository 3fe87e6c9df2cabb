/**
 * The instruments port: the outcomes worth counting, each reported once, where it is decided. Labels
 * are names from small fixed sets (operations, tools, jobs, codes, rules, purposes), never an id, a
 * reference, an address or a text a caller chose. `noInstruments` when metrics are off (neither
 * METRICS_TOKEN nor METRICS_PORT): nothing is collected. src/composition/metrics.ts implements it with
 * prom-client; domain code never imports prom-client.
 */
export interface Instruments {
  /** A GraphQL operation answered: `operation` its name (null: anonymous), `via` the transport, `outcome` `ok` or the first error's code. */
  graphqlOperation(operation: string | null, via: string, outcome: string): void;
  /** An error answered to a caller, by its code (domain codes, `internal_error`, GraphQL's own request codes). */
  errorAnswered(code: string): void;
  /** An MCP tool call answered: `ok` or its failure's `error_code`. */
  mcpToolCall(tool: string, outcome: string): void;
  /** A queued job finished in this process. */
  jobFinished(job: string, outcome: JobOutcome, seconds: number): void;
  /** Outbox events the dispatcher delivered, or put back to retry later. */
  outboxDeliveries(outcome: OutboxOutcome, count: number): void;
  /** Records sealed (counted when their transaction commits). */
  sealed(count: number): void;
  /** A sealed record's PDF and card are both stored: how long after its seal. */
  artifactsReady(secondsSinceSeal: number): void;
  /** A sealed PDF was made degraded (its authorities were down), at this level where B-LTA was aimed at. */
  sealDegraded(level: string): void;
  /** An attempt to complete a degraded seal: `completed` (B-LTA now), `improved` (a better level, still lacking), `failed` (nothing stored). */
  sealCompletion(outcome: SealCompletionOutcome): void;
  /** An anchoring batch was prepared with this many seals. */
  anchorBatch(seals: number): void;
  /** An anchoring attempt failed on the chain (RPC, rejection, replacement) or unexpectedly. */
  chainError(): void;
  /** One mail delivery attempt's end. */
  mail(outcome: MailOutcome): void;
  /** A request refused by a rate limit, by the rule's name. */
  rateLimited(rule: string): void;
  /** The OAuth authorization server's outcomes (tokens at the token endpoint, consents on the consent page). */
  oauth(outcome: OAuthOutcome): void;
  /** One-time codes (sign-in is purpose `authenticate`): requested, verified, refused. */
  oneTimeCode(purpose: string, outcome: CodeOutcome): void;
}

export type JobOutcome = 'ok' | 'failed';
export type SealCompletionOutcome = 'completed' | 'improved' | 'failed';
export type OutboxOutcome = 'delivered' | 'retry';
/** `retry`: not sent, will be tried again; `failed`: the last attempt failed, never sent. */
export type MailOutcome = 'sent' | 'retry' | 'failed';
export type OAuthOutcome = 'token_issued' | 'token_refused' | 'consent_given' | 'consent_denied';
export type CodeOutcome = 'requested' | 'verified' | 'refused';

const nothing = () => undefined;

/** Metrics off: every report is dropped where it is made. */
export const noInstruments: Instruments = {
  graphqlOperation: nothing,
  errorAnswered: nothing,
  mcpToolCall: nothing,
  jobFinished: nothing,
  outboxDeliveries: nothing,
  sealed: nothing,
  artifactsReady: nothing,
  sealDegraded: nothing,
  sealCompletion: nothing,
  anchorBatch: nothing,
  chainError: nothing,
  mail: nothing,
  rateLimited: nothing,
  oauth: nothing,
  oneTimeCode: nothing,
};
