/**
 * @module mcp/serve/serve-stdio
 * The stdio half: `serveRegistryStdio()` serves a registry on this process's
 * stdin/stdout (the child a CLI spawns) in both protocol eras, through the
 * SDK's `serveStdio()`, and `stdioCommand()` builds the command that spawns
 * such a child.
 */
import { checkTasksOption, ServedTasks, type TasksOptions } from "./served-tasks.js";
import { checkResultsOption, moduleBudget, type ResultsOptions } from "./served-results.js";
import { checkOptions, opt, type CheckedOptions, type OptionRule } from "../../options/option-checks.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Readable, Writable } from "node:stream";
import type { RunContext } from "../../context/run-context.js";
import type { StdioCaller } from "../../context/caller.js";
import type { CallerOf } from "./extra-handlers.js";
import { checkServerName } from "../../wire/names.js";
import { sdkStdioServer } from "../peers/sdk-server.js";
import { buildCatalog, type ServedCatalog, type ToolSource } from "./served-catalog.js";
import { serveResults, servedServerFactory, type ToolGuard } from "./served-server.js";
import { OptionsError } from "../../errors/options.error.js";
import { checkHeartbeatMs } from "./heartbeat.js";
import { errorLine } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import { servedExtras, type PromptsOption, type ResourceSource, type ServedExtras } from "./served-extras.js";
import { checkSkillsOption, loadSkillsOption, type SkillsOption } from "./served-skills.js";

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
  /** MCP tasks: the store and defaults (see `ServeRegistryOptions.tasks`). */
  tasks?: TasksOptions;
  /** Served results within a budget, on by default; `false` turns the module-wide budget off (see `ServeRegistryOptions.results`). */
  results?: ResultsOptions | false;
  /** A folder of skills to serve (see `ServeRegistryOptions.skills`); read before serving starts. */
  skills?: SkillsOption;
}

/** A registry being served on stdin/stdout (`openStdioServing`). */
export interface StdioServing {
  /** Resolves once serving ended: the peer closed stdin, the transport closed, or `close()`. Never rejects. */
  readonly closed: Promise<void>;
  /** Stop serving (calls in flight are cancelled through their context's signal). Idempotent. */
  close(): Promise<void>;
}

/** A stream option: `undefined` (the process's own), or something with `on` and `once`, as Node streams have. */
const stream = <T>(): OptionRule<T | undefined> =>
  opt.that<T>(
    (v) => typeof (v as Readable).on === "function" && typeof (v as Readable).once === "function",
    "a Node stream, or be left unset",
  );

/** The options of `serveRegistryStdio()`, declared once. */
const STDIO_OPTIONS = {
  name: (v: unknown) => checkServerName(v),
  ctx: ((v, where, option) => {
    if (!v || typeof (v as RunContext).child !== "function")
      throw new OptionsError(
        where,
        option,
        `${where}: ctx must be a RunContext (a child builds its own; nothing crosses the process boundary)`,
      );
    return v as RunContext;
  }) as OptionRule<RunContext>,
  timeoutMs: opt.timeoutMs(),
  heartbeatMs: (v: unknown, where: string) => checkHeartbeatMs(v, where),
  guard: opt.fn<ToolGuard>("(request) => Promise<{ allowed, ... }>"),
  resources: opt.any<ServeStdioOptions["resources"]>(),
  prompts: opt.any<ServeStdioOptions["prompts"]>(),
  stdin: stream<Readable>(),
  stdout: stream<Writable>(),
  tasks: (v: unknown, where: string) => checkTasksOption(v, where),
  results: (v: unknown, where: string) => checkResultsOption(v, where),
  skills: (v: unknown, where: string) => checkSkillsOption(v, where),
} as const;

/** `serveRegistryStdio()`'s options checked, defaults filled in: what `openStdioCatalog` takes. */
export type StdioPlan = CheckedOptions<typeof STDIO_OPTIONS>;

/** Check `options` against the spec: the plan, or `OptionsError` (code `mcp_name` for the name) naming what was wrong. */
export function checkStdioOptions(options: ServeStdioOptions, who = "serveRegistryStdio"): StdioPlan {
  if (!options || typeof options !== "object") throw new OptionsError(who, "options", `${who}: options { name, ctx } are required`);
  return checkOptions(options, who, STDIO_OPTIONS);
}

/**
 * Start serving `tools` on stdin/stdout and resolve once connected, with a
 * handle whose `closed` resolves when the peer closes stdin. The same checks
 * and contract as `serveRegistryStdio` (which is this, awaited to the end).
 */
export async function openStdioServing(tools: ToolSource, options: ServeStdioOptions): Promise<StdioServing> {
  const plan = checkStdioOptions(options);
  const catalog = buildCatalog(tools, plan.name, undefined, moduleBudget(plan.results));
  const skills = await loadSkillsOption(plan.skills, "serveRegistryStdio");
  return openStdioCatalog(catalog, servedExtras({ resources: plan.resources, prompts: plan.prompts, skills }), plan);
}

/**
 * `openStdioServing` on what is already checked — the catalog, the resources
 * and prompts, the options — so nothing is checked again: the entry of
 * `bootstrap(Module, { transport: "stdio" })`.
 */
export async function openStdioCatalog(catalog: ServedCatalog, extras: ServedExtras, plan: StdioPlan): Promise<StdioServing> {
  const tasks = new ServedTasks(plan.name, plan.tasks);
  const results = serveResults(catalog, extras, plan.results);
  // Tasks a dead process left on the store (see served-tasks), decided before the first request.
  await tasks.recover(catalog, plan.ctx, undefined, plan.guard);
  const options = {
    ctx: plan.ctx,
    timeoutMs: plan.timeoutMs,
    heartbeatMs: plan.heartbeatMs,
    guard: plan.guard,
    extras,
    tasks,
    results,
    callerOf: stdioCaller,
  };
  const factory = servedServerFactory(catalog, options, { calls: 0 });
  const { serveStdio, StdioServerTransport } = sdkStdioServer();
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  /** The SDK's stdio transport, telling `closed` when it closed: stdin ended, stdout failed, or `close()`. */
  class EndingTransport extends StdioServerTransport {
    override async close(): Promise<void> {
      await super.close();
      ended();
    }
  }
  const wire = new EndingTransport(plan.stdin ?? process.stdin, plan.stdout ?? process.stdout);
  // The SDK's entry picks the era from the opening message (2026-07-28 `server/discover` or an envelope,
  // else the 2025 `initialize`) and pins one server from the factory to the connection.
  const handle = serveStdio(() => factory(), {
    transport: wire,
    onerror: (err) => getLogger().debug(`serveRegistryStdio '${plan.name}': ${errorLine(err)}`),
  });
  let stopping: Promise<void> | undefined;
  const close = (): Promise<void> => {
    tasks.stopSweeping();
    return (stopping ??= handle.close().then(
      () => closed,
      () => closed,
    ));
  };
  // Stdin ending closes the transport without close(): the expiry sweep stops then too.
  void closed.then(() => tasks.stopSweeping());
  tasks.startSweeping();
  return { closed, close };
}

/** The client that spawned this process (`ctx.caller` of each request served on stdio). */
const stdioCaller: CallerOf = (extra, server): StdioCaller => Object.freeze({ kind: "stdio", server, requestId: extra.mcpReq.id });

/**
 * Serve `tools` on stdin/stdout with the same advertising and error contract
 * as `serveRegistry` over HTTP, in both protocol eras: a client opening with
 * `server/discover` (or a 2026-07-28 `_meta` envelope) is served 2026-07-28,
 * one opening with `initialize` 2025-11-25 (the SDK's `serveStdio()` decides
 * on the first message and keeps one server for the connection). Writes no
 * config file (a process spawned by a config cannot also author it). Resolves when the peer closes stdin (calls
 * still in flight are cancelled through their context's signal), so the
 * process can exit; rejects only for bad options or names, before serving.
 */
export async function serveRegistryStdio(tools: ToolSource, options: ServeStdioOptions): Promise<void> {
  const serving = await openStdioServing(tools, options);
  await serving.closed;
}

/** The options `stdioCommand` accepts, declared once. */
const STDIO_COMMAND_OPTIONS = {
  cwd: opt.string("a directory path", true),
  nodeArgs: opt.stringArray(true),
} as const;

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
 * @throws OptionsError for an entry naming nothing (option `"entry"`), an
 *   unknown option, a value of the wrong kind (`nodeArgs` must be an array of
 *   strings) or `null` options, naming what is accepted.
 */
export function stdioCommand(entry: string | URL, options: { cwd?: string; nodeArgs?: readonly string[] } = {}): readonly string[] {
  const o = checkOptions(options, "stdioCommand", STDIO_COMMAND_OPTIONS);
  const cwd = o.cwd ?? process.cwd();
  const file = resolveEntry(entry, cwd);
  return Object.freeze([process.execPath, ...(o.nodeArgs ?? []), file]);
}

function resolveEntry(entry: string | URL, cwd: string): string {
  if (entry instanceof URL || (typeof entry === "string" && entry.startsWith("file:"))) {
    return mustExist(fileURLToPath(entry), entry);
  }
  if (typeof entry !== "string" || !entry) {
    throw new OptionsError(
      "stdioCommand",
      "entry",
      `stdioCommand: entry must be a file path, a file: URL or a module specifier, got ${JSON.stringify(entry)}`,
    );
  }
  if (isAbsolute(entry) || entry.startsWith("./") || entry.startsWith("../") || entry === "." || entry === "..") {
    return mustExist(resolve(cwd, entry), entry);
  }
  try {
    return createRequire(join(resolve(cwd), "noop.js")).resolve(entry);
  } catch (err) {
    const bin = packageBin(entry, cwd);
    if (bin) return bin;
    throw new OptionsError(
      "stdioCommand",
      "entry",
      `stdioCommand: cannot resolve '${entry}' from ${cwd}: give a path to the entry file ` +
        `('./dist/mcp-server.js'), a module specifier Node can resolve from there, or the name of an installed ` +
        `package with a bin`,
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
    throw new OptionsError(
      "stdioCommand",
      "entry",
      `stdioCommand: entry ${JSON.stringify(String(entry))} names no file (${path}); point it at the built ` +
        `JavaScript file that calls serveRegistryStdio(...)`,
    );
  }
  return path;
}
