/**
 * @module test/cli/kit/wire-log-proxy
 * A request log between a real CLI and a served endpoint: a reverse proxy on
 * 127.0.0.1:0 that forwards every request unchanged (headers, body, the
 * streamed answer) to `target` and records, per POST, the JSON-RPC method,
 * the `MCP-Protocol-Version` and `Mcp-Session-Id` headers and the envelope's
 * protocol version, the `Mcp-Name` header, when it arrived and how long
 * its answer took. What the CLI really sent, not what the server made of it.
 * With `hold`, the first answer to a request of that method is read whole and
 * kept back until `release()` (a client that gives up while its answer is on
 * its way).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST as the CLI sent it. */
export interface LoggedRequest {
  readonly method: string;
  readonly protocolHeader: string | undefined;
  readonly session: string | undefined;
  readonly envelopeVersion: unknown;
  readonly params: Record<string, unknown> | undefined;
  readonly mcpName: string | undefined;
  /** Milliseconds from the proxy's start to the request's arrival. */
  readonly at: number;
  /** Milliseconds from the request's arrival to the end of its answer (set when the answer has ended). */
  answeredMs?: number;
  /** The answer's body (JSON or SSE text), once it has ended. */
  answer?: string;
}

/** The running proxy: `url` to give the CLI, `log` of what it sent. */
export class WireLogProxy implements AsyncDisposable {
  readonly log: LoggedRequest[] = [];
  /** With `hold`: the held answer's body, once the proxy holds it. */
  readonly held: Promise<string>;
  /** With `hold`: let the held answer through. */
  readonly release: () => void;
  private holding: ((body: string) => void) | undefined;
  private readonly released: Promise<void>;
  private readonly started = Date.now();
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private hold: string | undefined,
  ) {
    let release!: () => void;
    this.released = new Promise<void>((resolve) => (release = resolve));
    this.release = release;
    this.held = new Promise<string>((resolve) => (this.holding = resolve));
  }

  static async start(target: string, options: { hold?: string } = {}): Promise<WireLogProxy> {
    const to = new URL(target);
    const ref: { self?: WireLogProxy } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const entry = req.method === "POST" ? ref.self!.record(req.headers, body) : undefined;
        const out = request(
          { host: to.hostname, port: to.port, path: to.pathname, method: req.method, headers: { ...req.headers, host: to.host } },
          (answer) => {
            if (entry && entry.method === ref.self!.hold) return ref.self!.holdAnswer(answer, res);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            const parts: Buffer[] = [];
            answer.on("data", (c: Buffer) => parts.push(c));
            answer.on("end", () => {
              if (!entry) return;
              entry.answeredMs = Date.now() - ref.self!.started - entry.at;
              entry.answer = Buffer.concat(parts).toString("utf8");
            });
            answer.pipe(res);
          },
        );
        out.on("error", () => res.destroy());
        res.on("close", () => out.destroy());
        out.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return (ref.self = new WireLogProxy(server, `http://127.0.0.1:${port}${to.pathname}`, options.hold));
  }

  /** The first answer to the held method: read whole, kept until `release()`, then written (unless its client left). */
  private holdAnswer(answer: IncomingMessage, res: ServerResponse): void {
    this.hold = undefined;
    const parts: Buffer[] = [];
    answer.on("data", (c: Buffer) => parts.push(c));
    answer.on("end", () => {
      const body = Buffer.concat(parts);
      this.holding?.(body.toString("utf8"));
      void this.released.then(() => res.destroyed || res.writeHead(answer.statusCode ?? 502, answer.headers).end(body));
    });
  }

  private record(headers: Record<string, string | string[] | undefined>, body: Buffer): LoggedRequest {
    const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
    let parsed: { method?: string; params?: Record<string, unknown> } = {};
    try {
      parsed = JSON.parse(body.toString("utf8")) as typeof parsed;
    } catch {
      // not JSON: logged as such
    }
    const meta = parsed.params?._meta as Record<string, unknown> | undefined;
    const entry: LoggedRequest = {
      method: parsed.method ?? "(no method)",
      protocolHeader: one(headers["mcp-protocol-version"]),
      session: one(headers["mcp-session-id"]),
      envelopeVersion: meta?.["io.modelcontextprotocol/protocolVersion"],
      params: parsed.params,
      mcpName: one(headers["mcp-name"]),
      at: Date.now() - this.started,
    };
    this.log.push(entry);
    return entry;
  }

  /** The logged JSON-RPC methods in order. */
  methods(): string[] {
    return this.log.map((l) => l.method);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
