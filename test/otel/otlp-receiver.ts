/**
 * @module test/otel/otlp-receiver
 * An OTLP/HTTP trace receiver for tests: 127.0.0.1, an ephemeral port, and
 * decoding of what `@opentelemetry/exporter-trace-otlp-http` sends (OTLP/JSON:
 * hex ids, typed attribute values) into flat spans.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One received span, flattened. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  /** The exporter's `x-test-process` header, else the resource's `service.name`. */
  readonly service: string;
  readonly attributes: Record<string, unknown>;
  readonly events: string[];
  readonly status: number;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
};
type OtlpAttr = { key: string; value: OtlpValue };

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attrMap = (list: OtlpAttr[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/** The spans of one OTLP/JSON export request. */
function decode(body: string): ReceivedSpan[] {
  const doc = JSON.parse(body) as {
    resourceSpans?: { resource?: { attributes?: OtlpAttr[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
  };
  const out: ReceivedSpan[] = [];
  for (const rs of doc.resourceSpans ?? []) {
    const service = String(attrMap(rs.resource?.attributes)["service.name"] ?? "");
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: String(s.traceId),
          spanId: String(s.spanId),
          parentSpanId: String(s.parentSpanId ?? ""),
          name: String(s.name),
          kind: Number(s.kind),
          service,
          attributes: attrMap(s.attributes as OtlpAttr[]),
          events: ((s.events as { name: string }[] | undefined) ?? []).map((e) => e.name),
          status: Number((s.status as { code?: number } | undefined)?.code ?? 0),
        });
      }
    }
  }
  return out;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** The traces endpoint (`http://127.0.0.1:<port>/v1/traces`). */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  readonly spans: ReceivedSpan[];
  /** Every raw request body, for "this text never crossed the wire" checks. */
  readonly bodies: string[];
  /** Resolves once `pred(spans)` holds; rejects after `ms`. */
  until(pred: (spans: readonly ReceivedSpan[]) => boolean, ms?: number): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Start a receiver on 127.0.0.1:0. */
export async function otlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (req.method !== "POST" || req.url !== "/v1/traces" || !String(req.headers["content-type"]).startsWith("application/json")) {
        res.writeHead(415).end();
        return;
      }
      bodies.push(body);
      const from = String(req.headers["x-test-process"] ?? "");
      spans.push(...decode(body).map((sp) => ({ ...sp, service: from || sp.service })));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    bodies,
    until(pred, ms = 10_000) {
      return new Promise<void>((resolve, reject) => {
        if (pred(spans)) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`the OTLP receiver did not get the expected spans within ${ms} ms; got: ${spans.map((s) => s.name).join(", ")}`),
          );
        }, ms);
        const check = (): void => {
          if (!pred(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
