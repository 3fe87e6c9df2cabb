import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };
type WireSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[];
  links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
};
type ExportRequest = { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: WireSpan[] }[] }[] };

/** A span as received, its attributes decoded to plain values. */
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
};

function value(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return null;
}

const decoded = (attributes: KeyValue[] | undefined) => Object.fromEntries((attributes ?? []).map((a) => [a.key, value(a.value)]));

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 (the JSON encoding, http/json: what
 * @opentelemetry/exporter-trace-otlp-http sends): a real collector's endpoint `/v1/traces`, keeping
 * every span and the raw bodies (to look for secrets in everything that was sent).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request body, decoded to text. */
  readonly bodies: string[] = [];
  private server: http.Server | null = null;

  async start(): Promise<string> {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (!String(request.headers['content-type']).includes('json')) {
          response.writeHead(415).end();
          return;
        }
        const text = body.toString('utf8');
        this.bodies.push(text);
        this.take(JSON.parse(text) as ExportRequest);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** The chain of ancestors of `span` within its trace, nearest first. */
  ancestors(span: ReceivedSpan): ReceivedSpan[] {
    const chain: ReceivedSpan[] = [];
    let parent = this.spans.find((s) => s.spanId === span.parentSpanId && s.traceId === span.traceId);
    while (parent) {
      chain.push(parent);
      const current: ReceivedSpan = parent;
      parent = this.spans.find((s) => s.spanId === current.parentSpanId && s.traceId === current.traceId);
    }
    return chain;
  }

  private take(request: ExportRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = decoded(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || null,
            name: span.name,
            kind: span.kind,
            scope: scopeSpans.scope?.name ?? '',
            attributes: decoded(span.attributes),
            events: (span.events ?? []).map((event) => ({ name: event.name, attributes: decoded(event.attributes) })),
            links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
            status: span.status ?? {},
            resource,
          });
        }
      }
    }
  }
}
