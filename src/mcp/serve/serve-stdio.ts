/**
 * @module mcp/serve/serve-stdio
 * The stdio half: `serveRegistryStdio()` serves a registry on this process's
 * stdin/stdout (the child a CLI spawns), and `stdioCommand()` builds the
 * command that spawns such a child.
 */
import { isTimeoutMs } from "../../options/option-checks.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Readable, Writable } from "node:stream";
import type { RunContext } from "../../context/run-context.js";
import { checkServerName } from "../../wire/names.js";
import { sdkStdioServer } from "./sdk-server.js";
import { buildCatalog, type ToolSource } from "./served-catalog.js";
import { servedServerFactory, type ToolGuard } from "./served-server.js";
import { ServeOptionsError } from "./serve-options.error.js";
import { checkHeartbeatMs } from "./heartbeat.js";
import { servedExtras, type PromptsOption, type ResourceSource } from "./served-extras.js";

/** Options of `serveRegistryStdio()`. */
export interface ServeStdioOptions {
  /** The server name (same rule as `serveRegistry`). */
  name: string;
  /** The child's own run context (nothing crosses the process boundary). */
  ctx: RunContext;
  /** Per-call deadline in ms; default none (forever). */
  timeoutMs?: number;
  /** A pending call silent this long sends a progress heartbeat (see `ServeRegistryOptions.heartbeatMs`). Default 30,000; 0 off. */
  heartbeatMs?: number;
  /** Consulted before each call; see `ToolGuard`. */
  guard?: ToolGuard;
  /** Resources to serve (see `ServeRegistryOptions.resources`). */
  resources?: readonly ResourceSource[];
  /** Prompts to serve (see `ServeRegistryOptions.prompts`). */
  prompts?: PromptsOption;
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. Nothing else may write to it: it carries the protocol. */
  stdout?: Writable;
}

/** A registry being served on stdin/stdout (`openStdioServing`). */
export interface StdioServing {
  /** Resolves once serving ended: the peer closed stdin, the transport closed, or `close()`. Never rejects. */
  readonly closed: Promise<void>;
  /** Stop serving (calls in flight are cancelled through their context's signal). Idempotent. */
  close(): Promise<void>;
}

function checkStdioOptions(options: ServeStdioOptions, who: string): void {
  if (!options || typeof options !== "object") throw new ServeOptionsError("options", `${who}: options { name, ctx } are required`);
  checkServerName(options.name);
  if (!options.ctx || typeof options.ctx.child !== "function") {
    throw new ServeOptionsError("ctx", `${who}: ctx must be a RunContext (a child builds its own; nothing crosses the process boundary)`);
  }
  const t = options.timeoutMs;
  if (t !== undefined && !isTimeoutMs(t)) {
    throw new ServeOptionsError("timeoutMs", `${who}: timeoutMs must be a positive number of milliseconds (or omitted), got ${String(t)}`);
  }
  checkHeartbeatMs(options.heartbeatMs, who, (option, message) => new ServeOptionsError(option, message));
}

/**
 * Start serving `tools` on stdin/stdout and resolve once connected, with a
 * handle whose `closed` resolves when the peer closes stdin. The same checks
 * and contract as `serveRegistryStdio` (which is this, awaited to the end);
 * `bootstrap(Module, { transport: "stdio" })` serves through it.
 */
export async function openStdioServing(tools: ToolSource, options: ServeStdioOptions, who = "serveRegistryStdio"): Promise<StdioServing> {
  checkStdioOptions(options, who);
  const catalog = buildCatalog(tools, options.name);
  const extras = servedExtras(options);
  const server = servedServerFactory(catalog, { ctx: options.ctx, timeoutMs: options.timeoutMs, heartbeatMs: checkHeartbeatMs(options.heartbeatMs, who), guard: options.guard, extras }, { calls: 0 })();
  const stdin = options.stdin ?? process.stdin;
  const { StdioServerTransport } = sdkStdioServer();
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let finished: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const finish = (): Promise<void> => {
    if (finished) return finished;
    stdin.off("end", finish);
    stdin.off("close", finish);
    finished = server.close().then(resolveClosed, resolveClosed);
    return finished;
  };
  // The SDK transport does not notice the end of stdin; the peer closing it is our signal to go.
  stdin.once("end", finish);
  stdin.once("close", finish);
  server.onclose = () => void finish();
  try {
    await server.connect(transport);
  } catch (err) {
    stdin.off("end", finish);
    stdin.off("close", finish);
    throw err;
  }
  return { closed, close: finish };
}

/**
 * Serve `tools` on stdin/stdout with the same advertising and error contract
 * as `serveRegistry` over HTTP. Writes no config file (a process spawned by a
 * config cannot also author it). Resolves when the peer closes stdin (calls
 * still in flight are cancelled through their context's signal), so the
 * process can exit; rejects only for bad options or names, before serving.
 */
export async function serveRegistryStdio(tools: ToolSource, options: ServeStdioOptions): Promise<void> {
  const serving = await openStdioServing(tools, options);
  await serving.closed;
}

/**
 * The command that runs `entry` as a stdio MCP server child:
 * `[process.execPath, ...nodeArgs, <absolute path>]`. It starts from this
 * Node binary, not `node` on PATH, because the CLI spawns the child with the
 * caller's PATH, where `node` may be another version or absent.
 *
 * `entry` is a file path (relative paths resolve against `options.cwd`,
 * default `process.cwd()`), a `file:` URL, a module specifier such as
 * `myapp/mcp-server` (resolved now, from `options.cwd`, as `require.resolve`
 * would — so the command does not depend on the CLI's working directory; for
 * an ESM-only package whose exports Node's CommonJS resolver cannot see, pass
 * the file path instead), or the name of an installed package with a `bin`
 * (its only bin, or the one named after the package). The entry must exist:
 * a command naming nothing is refused here rather than written into a config
 * the CLI would fail on a minute later.
 * Throws `ServeOptionsError` (option `"entry"`).
 */
export function stdioCommand(entry: string | URL, options: { cwd?: string; nodeArgs?: readonly string[] } = {}): readonly string[] {
  const cwd = options.cwd ?? process.cwd();
  const file = resolveEntry(entry, cwd);
  return Object.freeze([process.execPath, ...(options.nodeArgs ?? []), file]);
}

function resolveEntry(entry: string | URL, cwd: string): string {
  if (entry instanceof URL || (typeof entry === "string" && entry.startsWith("file:"))) {
    return mustExist(fileURLToPath(entry), entry);
  }
  if (typeof entry !== "string" || !entry) {
    throw new ServeOptionsError("entry", `stdioCommand: entry must be a file path, a file: URL or a module specifier, got ${JSON.stringify(entry)}`);
  }
  if (isAbsolute(entry) || entry.startsWith("./") || entry.startsWith("../") || entry === "." || entry === "..") {
    return mustExist(resolve(cwd, entry), entry);
  }
  try {
    return createRequire(join(resolve(cwd), "noop.js")).resolve(entry);
  } catch (err) {
    const bin = packageBin(entry, cwd);
    if (bin) return bin;
    throw new ServeOptionsError(
      "entry",
      `stdioCommand: cannot resolve '${entry}' from ${cwd}: give a path to the entry file ('./dist/mcp-server.js'), a module specifier Node can resolve from there, or the name of an installed package with a bin`,
      { cause: err },
    );
  }
}

/** For a bare package name: its `bin` file (the only one, or the one named after the package), found in node_modules above `cwd`. */
function packageBin(name: string, cwd: string): string | undefined {
  if (!/^(@[^/]+\/)?[^/@][^/]*$/.test(name)) return undefined;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const pkgDir = join(dir, "node_modules", name);
    const manifest = join(pkgDir, "package.json");
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: string | Record<string, string> };
      const bins = typeof pkg.bin === "string" ? { [name]: pkg.bin } : (pkg.bin ?? {});
      const entries = Object.entries(bins);
      const pick = entries.length === 1 ? entries[0]![1] : bins[name.split("/").pop()!];
      return pick ? mustExist(resolve(pkgDir, pick), name) : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function mustExist(path: string, entry: string | URL): string {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new ServeOptionsError("entry", `stdioCommand: entry ${JSON.stringify(String(entry))} names no file (${path}); point it at the built JavaScript file that calls serveRegistryStdio(...)`);
  }
  return path;
}
