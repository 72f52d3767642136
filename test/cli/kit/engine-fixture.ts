/**
 * @module test/cli/kit/engine-fixture
 * A small MCP server for the CLI tests before/alongside `serveRegistry`: the
 * SDK's low-level `Server` over stateless Streamable HTTP on 127.0.0.1:0,
 * with bearer auth, one tool `run_check{name}` whose body calls an injected
 * dependency, and a record of every `tools/call`.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** The dependency the tool body calls. */
export interface Checker {
  check(name: string): string;
}

/** The running fixture. */
export class EngineFixture implements AsyncDisposable {
  readonly calls: { name: string; arguments: Record<string, unknown> }[] = [];
  readonly token = randomBytes(16).toString("hex");
  private constructor(
    private readonly http: HttpServer,
    readonly url: string,
  ) {}

  static async start(checker: Checker, options: { name?: string } = {}): Promise<EngineFixture> {
    const ref: { self?: EngineFixture } = {};
    const http = createServer(async (req, res) => {
      if (req.headers.authorization !== `Bearer ${ref.self!.token}`) {
        res.writeHead(401, { "www-authenticate": "Bearer" }).end(JSON.stringify({ error: "unauthorized" }));
        return;
      }
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      const server = new Server({ name: options.name ?? "engine", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: "run_check",
            description: "Run the named check and report whether it passed.",
            inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
          },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const args = (request.params.arguments ?? {}) as Record<string, unknown>;
        ref.self!.calls.push({ name: request.params.name, arguments: args });
        return { content: [{ type: "text", text: checker.check(String(args.name)) }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
    return (ref.self = new EngineFixture(http, `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`));
  }

  /** The Claude `--mcp-config` document for this server (token `token` unless overridden). */
  mcpConfig(name = "engine", token = this.token): string {
    return JSON.stringify({ mcpServers: { [name]: { type: "http", url: this.url, headers: { Authorization: `Bearer ${token}` } } } });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
