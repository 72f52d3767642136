/**
 * @module mcp/di/in-memory
 * `connectModule(Module | tools)`: a module served to an `MCPClient` inside
 * this process — no port, no child process — for a user's tests (exported
 * from `arc-agentkit/testing`). The module is bootstrapped as it is for
 * `agentkit serve --transport stdio` (its guard, tasks, resources and prompts
 * included), on a pair of in-memory streams instead of this process's
 * stdin/stdout; the client speaks newline-delimited JSON-RPC over the other
 * ends, through the SDK's own stream transport.
 */
import { PassThrough } from "node:stream";
import type { DependencyContainer } from "tsyringe";
import type { RunContext } from "../../context/run-context.js";
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt } from "../../options/option-checks.js";
import { MCPClient, type MCPClientOptions } from "../client/mcp-client.js";
import { InMemoryServer } from "../client/servers.js";
import { sdkStdioServer } from "../peers/sdk-server.js";
import { bootstrap } from "./bootstrap.js";
import type { ModuleClass } from "./bootstrap-options.js";
import { McpServer } from "./mcp-server.decorator.js";
import type { McpServerOptions } from "./mcp-server-options.js";

/** Options of `connectModule`. */
export interface ConnectModuleOptions {
  /** The run context served calls use (see `BootstrapOptions.ctx`). Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
  /**
   * The parent container of the module's, e.g. one that registers the module's Asker (see
   * `BootstrapOptions.container`). Default: tsyringe's root container.
   */
  readonly container?: DependencyContainer;
  /** Options of the client (`MCPClient.start`'s), e.g. `requestTimeoutMs` or a `ctx` that answers the server's questions. */
  readonly client?: MCPClientOptions;
}

/** What `connectModule` serves: an `@McpServer` module class, or the tools of a module of their own (named `tools`). */
export type ConnectedModule = ModuleClass | McpServerOptions["tools"];

const CONNECT_MODULE_OPTIONS = {
  ctx: opt.any<RunContext>(),
  container: opt.any<DependencyContainer>(),
  client: opt.that<MCPClientOptions>((v) => !!v && typeof v === "object" && !Array.isArray(v), "MCPClient.start's options object"),
} as const;

/** The module `connectModule([...tools])` serves: a class of its own per call, named `tools`. */
function toolsModule(tools: McpServerOptions["tools"]): ModuleClass {
  const Module = { tools: class {} }.tools;
  McpServer({ name: "tools", tools })(Module);
  return Module;
}

/**
 * Serve a module (an `@McpServer` class, or an array of `@Tool` classes and
 * `tool()` objects) and open an `MCPClient` to it, in this process: no port,
 * no process, nothing written to disk. What the client sees is what a CLI
 * would over stdio: the tools' schemas, argument checks, the guard, results
 * and errors, over the real protocol. The client's `stop()` (or
 * `await using`) also stops the module.
 *
 * @example
 * ```ts
 * await using client = await connectModule(GreeterModule);
 * const result = await client.callTool("greet", { name: "Ada" });
 * ```
 * @throws OptionsError for an unknown or wrong-kind option, or a first argument that is neither a module nor tools, naming it.
 * @throws DefinitionError for a bad tool in the array; BootstrapError when the module cannot be built or served;
 * McpConnectError when the client cannot open.
 * @throws MissingPeerError when `@modelcontextprotocol/server` or `/client` is not installed (the install line in the message).
 */
export async function connectModule(module: ConnectedModule, options: ConnectModuleOptions = {}): Promise<MCPClient> {
  const o = checkOptions(options, "connectModule", CONNECT_MODULE_OPTIONS);
  if (typeof module !== "function" && !Array.isArray(module)) {
    throw new OptionsError(
      "connectModule",
      "module",
      `connectModule: the first argument must be an @McpServer module class or an array of tools (@Tool classes or ` +
        `tool() objects), got ${module === null ? "null" : typeof module}`,
    );
  }
  const served = Array.isArray(module) ? toolsModule(module) : (module as ModuleClass);
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const app = await bootstrap(served, {
    transport: "stdio",
    stdin: toServer,
    stdout: toClient,
    ...(o.container ? { container: o.container } : {}),
    ...(o.ctx ? { ctx: o.ctx } : {}),
  });
  const { StdioServerTransport } = sdkStdioServer();
  const stop = async (): Promise<void> => {
    toServer.end();
    await app.stop();
  };
  const name = Array.isArray(module) ? "tools" : (served as { name?: string }).name || "module";
  try {
    return await MCPClient.start(new InMemoryServer(name, () => new StdioServerTransport(toClient, toServer), stop), o.client ?? {});
  } catch (err) {
    await stop();
    throw err;
  }
}
