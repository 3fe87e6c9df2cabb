/** Span attributes: low-cardinality facts (names, kinds, counts), never ids of people, secrets or text. */
export type TraceAttributes = Readonly<Record<string, string | number | boolean>>;

/**
 * The tracing port: where work that the instrumented libraries cannot see (the outbox, jobs, render
 * threads, anchoring, in-process GraphQL) opens its spans, and how a trace is carried across the
 * database to work that continues it later. `noTracing` when OTEL_EXPORTER_OTLP_ENDPOINT is unset
 * (then no OpenTelemetry module is loaded at all); src/tracing/ implements it over OpenTelemetry.
 */
export interface Tracing {
  /** Runs `work` in a span, a child of the current one (a new trace when there is none). */
  inSpan<T>(name: string, attributes: TraceAttributes, work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` in a span continuing a stored trace context (a W3C traceparent written with an outbox
   * event or a job): the work after the commit reads as part of the change that caused it. Without one
   * (or an unreadable one), a new trace.
   */
  continueTrace<T>(traceparent: string | null | undefined, name: string, attributes: TraceAttributes, work: () => Promise<T>): Promise<T>;
  /** The current span's W3C traceparent, to store with work that continues it later; null when none. */
  traceparent(): string | null;
}

/** Tracing off: the work runs as it is, nothing is stored. */
export const noTracing: Tracing = {
  inSpan: (_name, _attributes, work) => work(),
  continueTrace: (_traceparent, _name, _attributes, work) => work(),
  traceparent: () => null,
};
