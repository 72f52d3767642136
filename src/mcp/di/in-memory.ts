/**
 * @module mcp/di/in-memory
 * `connectInMemory(Module)`: a module served to an `MCPClient` inside this
 * process — no port, no child process — for a user's tests. The module is
 * bootstrapped as it is for `agentkit serve --transport stdio` (its guard,
 * tasks, resources and prompts included), on a pair of in-memory streams
 * instead of this process's stdin/stdout; the client speaks newline-delimited
 * JSON-RPC over the other ends, through the SDK's own stream transport.
 */
import { PassThrough } from "node:stream";
import type { DependencyContainer } from "tsyringe";
import type { RunContext } from "../../context/run-context.js";
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt } from "../../options/option-checks.js";
import { MCPClient, type MCPClientOptions } from "../client/mcp-client.js";
import { InMemoryServer } from "../client/servers.js";
import { sdkStdioServer } from "../peers/sdk-server.js";
import { bootstrap, type McpApp } from "./bootstrap.js";
import type { ModuleClass } from "./bootstrap-options.js";

/** Options of `connectInMemory`. */
export interface InMemoryOptions {
  /** The parent container of the module's (see `BootstrapOptions.container`). Default: tsyringe's root container. */
  readonly container?: DependencyContainer;
  /** The run context served calls use (see `BootstrapOptions.ctx`). Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
  /** Options of the client (`MCPClient.open`'s), e.g. `requestTimeoutMs` or a `ctx` that answers the server's questions. */
  readonly client?: MCPClientOptions;
}

/** A module and a client connected in memory; `close()` (or `await using`) ends both. */
export interface InMemoryConnection extends AsyncDisposable {
  /** The client, as `MCPClient.open` returns it: `listTools`, `callTool`, `mcpTools(client)`, ... */
  readonly client: MCPClient;
  /** The bootstrapped module (its container: `app.get(Token)`). */
  readonly app: McpApp;
  /** Close the client, then stop the module. Idempotent. */
  close(): Promise<void>;
}

const IN_MEMORY_OPTIONS = {
  container: opt.any<DependencyContainer>(),
  ctx: opt.any<RunContext>(),
  client: opt.that<MCPClientOptions>((v) => !!v && typeof v === "object" && !Array.isArray(v), "MCPClient.open's options object"),
} as const;

/**
 * Serve `module` (an `@McpServer` class) and open an `MCPClient` to it, in
 * this process: no port, no process, nothing written to disk. What the client
 * sees is what a CLI would over stdio: the tools' schemas, argument checks,
 * the guard, results and errors, over the real protocol.
 *
 * @example
 * ```ts
 * await using conn = await connectInMemory(GreeterModule);
 * const result = await conn.client.callTool("greet", { name: "Ada" });
 * ```
 * @throws OptionsError for an unknown or wrong-kind option, naming it.
 * @throws BootstrapError when the module cannot be built or served; McpConnectError when the client cannot open.
 * @throws MissingPeerError when `@modelcontextprotocol/server` or `/client` is not installed (the install line in the message).
 */
export async function connectInMemory(module: ModuleClass, options: InMemoryOptions = {}): Promise<InMemoryConnection> {
  const o = checkOptions(options, "connectInMemory", IN_MEMORY_OPTIONS);
  if (typeof module !== "function") throw new OptionsError("connectInMemory", "module", `connectInMemory: the first argument must be an @McpServer module class, got ${module === null ? "null" : typeof module}`);
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const app = await bootstrap(module, { transport: "stdio", stdin: toServer, stdout: toClient, ...(o.container ? { container: o.container } : {}), ...(o.ctx ? { ctx: o.ctx } : {}) });
  const { StdioServerTransport } = sdkStdioServer();
  const name = (module as { name?: string }).name || "module";
  let client: MCPClient;
  try {
    client = await MCPClient.open(new InMemoryServer(name, () => new StdioServerTransport(toClient, toServer)), o.client ?? {});
  } catch (err) {
    toServer.end();
    await app.stop();
    throw err;
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      try {
        await client.close();
      } finally {
        toServer.end();
        await app.stop();
      }
    })());
  return { client, app, close, [Symbol.asyncDispose]: close };
}
