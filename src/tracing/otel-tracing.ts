import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { TraceAttributes, Tracing } from '../domain/shared/tracing.js';

const tracer = () => trace.getTracer('record-signing-service');

/** Runs `work` as the active span under `parent`, ending it with the work's outcome. */
function run<T>(name: string, attributes: TraceAttributes, parent: Context, work: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, parent, async (span: Span) => {
    try {
      return await work();
    } catch (error) {
      // The type only: an error's message may quote what a caller sent.
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', error instanceof Error ? error.name : typeof error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The tracing port over the OpenTelemetry API (the SDK is started by ./start.ts). */
export const otelTracing: Tracing = {
  inSpan: (name, attributes, work) => run(name, attributes, context.active(), work),
  continueTrace: (traceparent, name, attributes, work) => {
    // Extracted onto an empty context: the stored change is the parent, not whatever runs the delivery.
    const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
    return run(name, attributes, parent, work);
  },
  traceparent: () => {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    return carrier.traceparent ?? null;
  },
};
