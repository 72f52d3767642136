/**
 * @module mcp/serve/serve-registry
 * `serveRegistry()`: a `ToolRegistry` (or a bare list of tools) served as an
 * MCP server the Claude and Codex CLIs can call — over the loopback listener
 * in this process, or as a stdio command the CLI spawns.
 */
import type { RunContext } from "../../context/run-context.js";
import { LoopbackMcpTransport } from "../loopback/loopback-transport.js";
import { checkServerName } from "../names.js";
import { McpServerSpec } from "./mcp-server-spec.js";
import { buildCatalog, type ServedCatalog, type ToolSource } from "./served-catalog.js";
import { servedServerFactory, type CallCounter, type ToolGuard } from "./served-server.js";
import { ServeOptionsError } from "./serve-options.error.js";

/** Options of `serveRegistry()`. */
export interface ServeRegistryOptions {
  /** The server name (`engine`): one token of `[A-Za-z0-9_-]`, refused (not rewritten) otherwise. */
  name: string;
  /** The run context: each call runs with `ctx.child({ caller, signal })`; cancelling it stops dispatch. */
  ctx: RunContext;
  /** `"http"` (default): tools run in this process, on the loopback listener. `"stdio"`: the CLI spawns `command`. */
  transport?: "http" | "stdio";
  /** stdio only, required there: the command the CLI spawns (e.g. `stdioCommand("./dist/mcp-server.js")`). */
  command?: readonly string[];
  /** stdio only: environment for the spawned command (often the only way it can find your package). */
  env?: Record<string, string>;
  /** Per-call deadline in ms. Default: none — forever; a default deadline would kill legitimately slow tools and read as a flake. */
  timeoutMs?: number;
  /** Where to write the config file; default a fresh 0700 `agentkit-*` directory under `os.tmpdir()`. A path you give is yours: only the file is removed. */
  configPath?: string;
  /** HTTP only: `"token"` (default) or `"none"` (no bearer token; only when asked for by name). */
  auth?: "token" | "none";
  /** HTTP only: a fixed port; default 0 (ephemeral). A busy port rejects with the real `EADDRINUSE` error. */
  port?: number;
  /** Consulted (only when given) after the cancellation check and before argument validation and `run()`; see `ToolGuard`. */
  guard?: ToolGuard;
}

const STDIO_NEEDS_COMMAND =
  'serveRegistry: transport "stdio" needs command. With stdio the CLI spawns the server itself, so the tools are rebuilt in a fresh process — this process\'s registry, closures and ctx do not cross that boundary. Pass command (e.g. command: stdioCommand("./dist/mcp-server.js")) naming an entry point that calls serveRegistryStdio(...), or use transport "http" (the default) to keep the tools in this process.';

function checkOptions(options: ServeRegistryOptions): "http" | "stdio" {
  if (!options || typeof options !== "object") throw new ServeOptionsError("options", "serveRegistry: options { name, ctx } are required");
  checkServerName(options.name);
  const ctx = options.ctx as Partial<RunContext> | undefined;
  if (!ctx || typeof ctx.child !== "function" || !(ctx.signal instanceof AbortSignal)) {
    throw new ServeOptionsError("ctx", "serveRegistry: ctx must be a RunContext (served calls run in ctx.child(...)); e.g. makeTestCtx() or new RunContext()");
  }
  const transport = options.transport ?? "http";
  if (transport !== "http" && transport !== "stdio") {
    throw new ServeOptionsError("transport", `serveRegistry: transport must be "http" or "stdio", got ${JSON.stringify(transport)}`);
  }
  const t = options.timeoutMs;
  if (t !== undefined && !(typeof t === "number" && Number.isFinite(t) && t > 0)) {
    throw new ServeOptionsError("timeoutMs", `serveRegistry: timeoutMs must be a positive number of milliseconds (or omitted to wait forever), got ${String(t)}`);
  }
  if (options.guard !== undefined && typeof options.guard !== "function") {
    throw new ServeOptionsError("guard", "serveRegistry: guard must be a function (request) => Promise<{ allowed, ... }>");
  }
  if (transport === "stdio") {
    const c = options.command;
    if (c === undefined || c === null) throw new ServeOptionsError("command", STDIO_NEEDS_COMMAND);
    if (!Array.isArray(c) || c.length === 0 || !c.every((x) => typeof x === "string") || !c[0]) {
      throw new ServeOptionsError("command", `serveRegistry: command must be a non-empty array of strings (program first), got ${JSON.stringify(c)}`);
    }
    for (const key of ["port", "auth"] as const) {
      if (options[key] !== undefined) throw new ServeOptionsError(key, `serveRegistry: ${key} applies to transport "http" only; a stdio server has no listener`);
    }
    if (options.env !== undefined && (typeof options.env !== "object" || Object.values(options.env).some((v) => typeof v !== "string"))) {
      throw new ServeOptionsError("env", "serveRegistry: env must map names to string values");
    }
  } else {
    for (const key of ["command", "env"] as const) {
      if (options[key] !== undefined) {
        throw new ServeOptionsError(key, `serveRegistry: ${key} applies to transport "stdio" only; an HTTP server runs the tools in this process`);
      }
    }
  }
  return transport;
}

/**
 * Serve a registry (or a bare iterable of tools, registered for you) as an
 * MCP server. Resolves once the port is bound and held (HTTP) and the 0600
 * config file is written; the spec is not serving until `start()`.
 *
 * - Tools are advertised with their `schema.parameters` as `inputSchema`,
 *   untranslated; schema-less tools are dropped (see `spec.toolNames`).
 *   Names are sanitised to `[A-Za-z0-9_-]` (`spec.mcpNames` has the mapping).
 * - Each call: counted (`callsSeen`), refused if the run was cancelled, passed
 *   to `guard` when given, then `tool.run(args, ctx.child(...))`. The handler
 *   never throws: a bad call, a failure, an unknown tool, a cancellation or a
 *   missed deadline is an `isError` result the model can read.
 *
 * Rejects (before binding or writing anything) with `McpNameError` for an
 * invalid server name, colliding sanitised names or a qualified name over 64
 * characters; `ServeOptionsError` for bad options — including
 * `transport: "stdio"` without `command`; `DuplicateToolError` for two tools
 * with one name. A busy fixed `port` rejects with Node's `EADDRINUSE` error.
 */
export async function serveRegistry(registryOrTools: ToolSource, options: ServeRegistryOptions): Promise<McpServerSpec> {
  const transport = checkOptions(options);
  const catalog: ServedCatalog = buildCatalog(registryOrTools, options.name);
  const counter: CallCounter = { calls: 0 };
  if (transport === "stdio") {
    const [command, ...args] = options.command!;
    const stdio = Object.freeze({ command: command!, args: Object.freeze(args), env: Object.freeze({ ...(options.env ?? {}) }) });
    return new McpServerSpec({ catalog, counter, configPath: options.configPath, listener: null, stdio });
  }
  const listener = await LoopbackMcpTransport.bind({
    serverFactory: servedServerFactory(catalog, { ctx: options.ctx, timeoutMs: options.timeoutMs, guard: options.guard }, counter),
    port: options.port,
    auth: options.auth ?? "token",
  });
  try {
    return new McpServerSpec({ catalog, counter, configPath: options.configPath, listener, stdio: null });
  } catch (err) {
    await listener.stop();
    throw err;
  }
}
