/**
 * OpenTelemetry, started by main.ts only when OTEL_EXPORTER_OTLP_ENDPOINT is set and before the app's
 * modules are imported: the ESM hook (import-in-the-middle) must be in place when express, pg and
 * graphql load, for their instrumentations to wrap them. Nothing here is loaded otherwise.
 *
 * The SDK reads the standard OTEL_* variables itself (OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*). Spans go out as OTLP/HTTP JSON through a redacting exporter
 * (./redaction.ts); no metrics or logs are sent this way (metrics: /metrics, logs: stdout).
 */
import type { IncomingMessage } from 'node:http';
import { register as registerHooks, createRequire } from 'node:module';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { SpanKind } from '@opentelemetry/api';
import type { Tracing } from '../domain/shared/tracing.js';
import { redactAttributes, redactEventAttributes, redactName } from './redaction.js';

export type TracingSettings = { serviceName: string };

/** The modules whose instrumentations need the ESM hook; every other module loads unwrapped. */
const HOOKED = ['express', 'pg', 'pg-pool', 'graphql', 'http', 'https', 'node:http', 'node:https', /\/node_modules\/graphql\//];

export async function startTracing(settings: TracingSettings): Promise<{ tracing: Tracing; shutdown: () => Promise<void> }> {
  await registerEsmHook();
  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { ExpressInstrumentation }, { GraphQLInstrumentation }, { PgInstrumentation }, { UndiciInstrumentation }, { otelTracing }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-express'),
      import('@opentelemetry/instrumentation-graphql'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-undici'),
      import('./otel-tracing.js'),
    ]);
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    traceExporter: new RedactingExporter(new OTLPTraceExporter()),
    // Traces only: metrics are scraped from /metrics, logs go to stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are not requests anyone traces; they would drown the rest.
        ignoreIncomingRequestHook: (request: IncomingMessage) => /^\/(health|metrics)(\/|$|\?)/.test(request.url ?? ''),
        // Outgoing calls only inside a trace (the chain, a TSA, SMTP's own pollers are not traced alone).
        requireParentforOutgoingSpans: true,
        // No header is recorded (the defaults capture none; said here so it stays so).
        headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] }, client: { requestHeaders: [], responseHeaders: [] } },
      }),
      new ExpressInstrumentation(),
      // Literals masked in the document; no span per resolved field (hundreds a listing).
      new GraphQLInstrumentation({ allowValues: false, ignoreResolveSpans: true, mergeItems: true }),
      // SQL inside a trace only: the pollers (outbox, mail, webhooks, jobs) would start a trace a second.
      // Statement text only: parameters never (enhancedDatabaseReporting off), literals scrubbed on export.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
      // fetch (viem's chain calls, TSA requests): only inside a trace, no headers.
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  return { tracing: otelTracing, shutdown: () => sdk.shutdown() };
}

/**
 * import-in-the-middle's loader hook, limited to the hooked modules. In-thread (module.registerHooks)
 * where Node supports it; otherwise the off-thread loader, told about each hook before it continues.
 */
async function registerEsmHook(): Promise<void> {
  const require = createRequire(import.meta.url);
  const sync = (await import('import-in-the-middle/register-hooks.mjs')) as { supportsSyncHooks: () => boolean; register: (options: { include: (string | RegExp)[] }) => void };
  if (sync.supportsSyncHooks()) {
    sync.register({ include: HOOKED });
    return;
  }
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions } = createAddHookMessageChannel();
  registerHooks(require.resolve('import-in-the-middle/hook.mjs'), import.meta.url, registerOptions);
}

/**
 * The exporter behind the redaction: every span leaves with allowed attributes only (./redaction.ts),
 * scrubbed names, events without messages, and statuses without descriptions.
 */
class RedactingExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans.map(redacted), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function redacted(span: ReadableSpan): ReadableSpan {
  const client = span.kind === SpanKind.CLIENT || span.kind === SpanKind.PRODUCER;
  const spanContext = span.spanContext();
  return {
    name: redactName(span.name),
    kind: span.kind,
    spanContext: () => spanContext,
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: redactAttributes(span.attributes, { client }),
    links: span.links.map((link) => ({ context: link.context })),
    events: span.events.map((event) => ({ ...event, attributes: redactEventAttributes(event.attributes) })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
