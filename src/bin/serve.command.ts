/**
 * @module bin/serve.command
 * `agentkit serve <module-file>`: bootstrap a built `@McpServer` module and
 * serve it — on a loopback port with a generated token (http), or on this
 * process's stdin/stdout as the child a CLI spawns (stdio) — until SIGINT or
 * SIGTERM (or, for stdio, until stdin closes); then stop cleanly and exit 0.
 */
import { chmodSync, existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpApp } from "../mcp/di/index.js";
import {
  createPrivateFile,
  removeEmptyDir,
  removeMcpConfig,
  removePrivateFile,
  writeMcpConfig,
  type PrivateFile,
  type WrittenMcpConfig,
} from "../wire/mcp-config-file.js";
import { shellLine, shellQuote } from "../wire/shell-quote.js";
import { tomlOverride } from "../wire/toml.js";
import { flag, parseCommandLine, parseMilliseconds, strayArgument, stringOption, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";
import { stopSignal } from "./stop-signal.js";
import type { FailureContext } from "./failure-line.js";
import type { ModuleClass } from "./load-module.js";
import { SERVE_HELP } from "./help.js";
import { approveMode, openStore, startApprover, type Approver, type ApproverStore, type ApproveMode } from "./approver.js";
import { approverStore } from "./store-args.js";
import { loginKeyHint, offerNewLogins } from "./login-key.js";
import { withSpinner } from "./spinner.js";
import { errorLine } from "../util/format.js";
import { ignoreRejection } from "../util/logger.js";

const OPTIONS: OptionTable = {
  export: { type: "string" },
  transport: { type: "string" },
  "timeout-ms": { type: "string" },
  "write-mcp-json": { type: "string" },
  codex: { type: "boolean" },
  watch: { type: "boolean" },
  approve: { type: "string" },
  store: { type: "string" },
  "store-env": { type: "string" },
  "inbox-store": { type: "string" },
  worker: { type: "string" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** What `serve` asked for, checked before anything is loaded. */
interface ServeRequest {
  readonly file: string;
  readonly exportName?: string;
  readonly transport: "http" | "stdio";
  readonly timeoutMs?: number;
  readonly writeMcpJson?: string;
  readonly codex: boolean;
  /** `--watch`: restart in place after the module's directory changes. */
  readonly watch: boolean;
  /** Who answers the module's approval prompts (`--approve`); unset: the module's own Asker. */
  readonly approve?: ApproveMode;
  /** Where the inbox keeps its questions (`--inbox-store <dir>`, `--store <url>` / `--store-env VAR`). */
  readonly store?: ApproverStore;
  /** This process's name on the inbox page (`--worker NAME`). */
  readonly worker?: string;
}

/** Check `--worker NAME`: only with `--approve inbox|web`; 1-100 printable characters. */
function workerOption(value: string | undefined, approve: ApproveMode | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (approve !== "inbox" && approve !== "web")
    throw new UsageError("agentkit serve: --worker names this process on the inbox page, so it goes with --approve inbox or --approve web");
  if (value.trim() === "" || value.length > 100 || /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(value)) {
    throw new UsageError(
      `agentkit serve: --worker must be a name of 1-100 printable characters (no control or bidi characters), e.g. ` +
        `--worker build-3; got ${JSON.stringify(value.slice(0, 120))}`,
    );
  }
  return value.trim();
}

function request(argv: readonly string[]): ServeRequest | null {
  const line = parseCommandLine("serve", argv, OPTIONS);
  if (flag(line, "help")) return null;
  if (line.rest !== null)
    throw new UsageError(`agentkit serve: unexpected '--'; serve takes one module file: agentkit serve <module-file> [options]`);
  const [file, ...extra] = line.positionals;
  if (!file)
    throw new UsageError(
      "agentkit serve: name the built module file to serve: agentkit serve <module-file> [--export Name] (see agentkit serve --help)",
    );
  if (extra.length) throw strayArgument("serve", 2, "serve takes one module file (pick a class with --export Name)");
  const transport = stringOption(line, "transport") ?? "http";
  if (transport !== "http" && transport !== "stdio")
    throw new UsageError(`agentkit serve: --transport must be http or stdio, got '${transport}'`);
  const writeMcpJson = stringOption(line, "write-mcp-json");
  if (writeMcpJson !== undefined) {
    if (transport === "stdio") {
      throw new UsageError(
        "agentkit serve: --write-mcp-json is for --transport http; with --transport stdio this process is the child a CLI spawns, so the config that spawns it is written by you (run it on a terminal to see one)",
      );
    }
    const dir = dirname(resolve(writeMcpJson));
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`agentkit serve: --write-mcp-json: '${dir}' is not an existing directory; create it or choose another path`);
  }
  if (flag(line, "watch") && transport === "stdio") {
    throw new UsageError(
      "agentkit serve: --watch is for --transport http; with --transport stdio the CLI that spawned this process restarts it (a restart here would cut its session)",
    );
  }
  const timeoutMs = parseMilliseconds("serve", "timeout-ms", stringOption(line, "timeout-ms"));
  const approve = approveMode("serve", stringOption(line, "approve"));
  if (approve !== undefined && transport === "stdio") {
    throw new UsageError(
      "agentkit serve: --approve is for --transport http; with --transport stdio this process's stdin and stdout carry the protocol, so no person can be asked here",
    );
  }
  const store = approverStore("serve", line, approve);
  const worker = workerOption(stringOption(line, "worker"), approve);
  return {
    ...(approve !== undefined ? { approve } : {}),
    ...(store !== undefined ? { store } : {}),
    ...(worker !== undefined ? { worker } : {}),
    file,
    ...(stringOption(line, "export") !== undefined ? { exportName: stringOption(line, "export") } : {}),
    transport,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(writeMcpJson !== undefined ? { writeMcpJson } : {}),
    codex: flag(line, "codex"),
    watch: flag(line, "watch"),
  };
}

/**
 * Run `agentkit serve` with `argv` (the words after `serve`); resolves with
 * the exit code once the server has stopped (0 after SIGINT/SIGTERM or, for
 * stdio, stdin closing).
 *
 * @throws UsageError for a bad command line, a missing file, a file without
 *   (or with several) `@McpServer` classes; CliError when the file cannot be
 *   imported; BootstrapError when the module cannot start.
 */
export async function serveCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const req = request(argv);
  if (!req) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  context.timeoutFlag = "--timeout-ms";
  if (req.transport === "stdio") {
    // stdout carries the protocol only: a module that logs with console.log
    // must not corrupt the stream the CLI reads.
    for (const m of ["log", "info", "debug"] as const) console[m] = (...a: unknown[]) => console.error(...a);
  }
  const stop = stopSignal("serve", "a clean stop");
  let approver: Approver | undefined;
  let tasksStore: import("../askers/index.js").PostgresInboxStore | undefined;
  try {
    // Loaded only now: --help and usage errors stay fast (no DI, no validators).
    const { importModuleFile, pickModule } = await import("./load-module.js");
    const { generationUrl } = await import("./serve-watch.js");
    const load = async (generation: number) => {
      const { path, exports } = await importModuleFile(
        req.file,
        process.cwd(),
        req.watch ? (p) => generationUrl(p, generation) : undefined,
      );
      return pickModule(req.file, path, exports, req.exportName);
    };
    const chosen = await load(0);
    const { bootstrap } = await import("../mcp/di/index.js");
    if (req.transport === "stdio") return await serveStdio(req, chosen.module, chosen.exportName, chosen.path, bootstrap, stop.received);
    approver = req.approve ? await startApprover(req.approve, chosen.exportName, req.store, req.worker) : undefined;
    const person = approver ? { asker: approver.asker, ctx: approver.ctx } : {};
    // The module's MCP tasks live in the store the flags name (the inbox's own, with --approve web|inbox), so they survive a restart.
    if (!approver?.store && req.store) tasksStore = await openStore(req.store, "worker");
    const store = approver?.store ?? tasksStore;
    const tasks = store ? { tasks: { store } } : {};
    const boot = (module: ModuleClass, port?: number) =>
      bootstrap(module, {
        transport: "http",
        ...person,
        ...tasks,
        ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
        ...(port !== undefined ? { port } : {}),
      });
    const app = await withSpinner(`starting ${chosen.exportName}…`, () => boot(chosen.module));
    const live: LiveApp = { app, module: chosen.module };
    return await serveHttp(req, live, stop.received, approver, req.watch ? { load: async (n) => (await load(n)).module, boot } : undefined);
  } finally {
    stop.dispose();
    await approver?.stop();
    await tasksStore?.stop();
  }
}

/**
 * The credential files serve writes (the config, the Codex env file) and the
 * private scratch directory holding them; `cleanup()` removes exactly those
 * files (each only while it is still the file written) and the directory only
 * when nothing else was put in it.
 */
class ServeFiles {
  private readonly configs: WrittenMcpConfig[] = [];
  private readonly files: PrivateFile[] = [];
  private scratch: string | null = null;

  /** A fresh 0700 `agentkit-serve-*` directory, made on first use. */
  scratchDir(): string {
    if (!this.scratch) {
      this.scratch = mkdtempSync(join(tmpdir(), "agentkit-serve-"));
      chmodSync(this.scratch, 0o700);
    }
    return this.scratch;
  }

  /** Write the config document (exclusive create, 0600; a link or an existing file at `path` is refused). */
  config(document: object, path: string): string {
    const w = writeMcpConfig(document, { configPath: path });
    this.configs.push(w);
    return w.path;
  }

  /** Replace the config this object wrote at `path` with `document` (a restart's new token), at the same path. */
  rewriteConfig(document: object, path: string): void {
    const at = this.configs.findIndex((w) => w.path === path);
    if (at >= 0) removeMcpConfig(this.configs.splice(at, 1)[0]!);
    this.config(document, path);
  }

  /** Write a private text file in the scratch directory (exclusive create, 0600). */
  file(name: string, text: string, what: string): string {
    const f = createPrivateFile(join(this.scratchDir(), name), text, what);
    this.files.push(f);
    return f.path;
  }

  readonly cleanup = (): void => {
    for (const w of this.configs.splice(0)) removeMcpConfig(w);
    for (const f of this.files.splice(0)) removePrivateFile(f);
    if (this.scratch) removeEmptyDir(this.scratch);
    this.scratch = null;
  };
}

/** The Claude document naming the registry and (when the module has them) the approvals: typed, built from both parts. */
function claudeDocument(app: McpApp): object {
  const servers: Record<string, unknown> = { ...app.spec!.configDocument().mcpServers };
  if (app.approvals) Object.assign(servers, app.approvals.configDocument().mcpServers);
  return { mcpServers: servers };
}

function codexLines(app: McpApp, files: ServeFiles): string[] {
  const spec = app.spec!;
  const { config, env } = app.codexOptions();
  const envFile = files.file(
    "codex.env",
    Object.entries(env)
      .map(([k, v]) => `${k}=${shellQuote(v)}\n`)
      .join(""),
    "the Codex env file",
  );
  const overrides = Object.entries(config).flatMap(([k, v]) => ["-c", tomlOverride(k, v)]);
  const out = [
    `Codex: the token travels in ${Object.keys(env).join(", ") || "no variable"}, never in argv; ${envFile} (mode 0600) sets it:`,
  ];
  out.push(`  set -a; . ${shellQuote(envFile)}; set +a`);
  out.push(`  ${shellLine(["codex", "exec", ...overrides])} '<task>'`);
  if (spec.requiresApproval.length)
    out.push(
      `  (codex exec has no approval callback: ${spec.requiresApproval.join(", ")} will be refused unless the ` +
        `module guards it server-side)`,
    );
  return out;
}

function claudeLines(app: McpApp, configPath: string): string[] {
  const options = app.cliOptions();
  const words = ["claude", "--mcp-config", configPath, "--strict-mcp-config"];
  if (options.allowedTools.length) words.push("--allowedTools", options.allowedTools.join(","));
  if (options.permissionPromptTool !== undefined) words.push("--permission-prompt-tool", options.permissionPromptTool);
  if (options.settingSources !== undefined) words.push("--setting-sources", options.settingSources);
  return ["Claude Code:", `  ${shellLine(words)}`];
}

/** The lines saying who answers the approval prompts, when `--approve` chose someone. */
function approverLines(approver: Approver | undefined): string[] {
  if (!approver) return [];
  if (approver.loginUrl)
    return ["  approvals are answered in the browser: the one-time login link is on stderr (never on stdout, which may be piped or kept)"];
  if (approver.mode === "inbox") return ["  approvals are answered on the shared inbox's page (agentkit inbox serve, on the same store)"];
  return ["  approvals are answered on this terminal"];
}

/** The app being served, replaced in place by a `--watch` restart. */
interface LiveApp {
  app: McpApp;
  module: ModuleClass;
}

/** What a `--watch` restart needs: import generation `n` of the module file, and boot a module on a port. */
interface Restarter {
  load(generation: number): Promise<ModuleClass>;
  boot(module: ModuleClass, port?: number): Promise<McpApp>;
}

async function serveHttp(
  req: ServeRequest,
  live: LiveApp,
  stopped: Promise<NodeJS.Signals>,
  approver?: Approver,
  restarter?: Restarter,
): Promise<number> {
  const files = new ServeFiles();
  // A credential must not outlive its server, also if we die on the way out.
  process.once("exit", files.cleanup);
  let unwatch = (): void => {};
  try {
    const { app } = live;
    const spec = app.spec!;
    let configPath = spec.configPath;
    // Watching: the config is ours, at a path that outlives each restart.
    if (req.writeMcpJson !== undefined) configPath = files.config(claudeDocument(app), req.writeMcpJson);
    else if (app.approvals || restarter) configPath = files.config(claudeDocument(app), join(files.scratchDir(), "mcp.json"));
    const out: string[] = [];
    out.push(
      `agentkit serve: '${spec.name}' is serving ${spec.toolNames.length} tool(s) at ${spec.url} — the bearer ` +
        `token is in ${configPath} (mode 0600), never printed`,
    );
    for (const t of spec.toolNames) out.push(`  ${t}${spec.requiresApproval.includes(t) ? "  (requires approval)" : ""}`);
    if (app.approvals) out.push(`  approvals: ${app.approvals.toolName} at ${app.approvals.url}`);
    out.push(...approverLines(approver));
    out.push("");
    out.push(...(req.codex ? codexLines(app, files) : claudeLines(app, configPath)));
    out.push("");
    if (restarter)
      out.push(
        `Watching ${dirname(resolve(req.file))} for changes (run tsc --watch beside it): a rebuild restarts the ` +
          `module here, same URL and config path.`,
      );
    out.push("Ctrl-C (SIGINT) or SIGTERM stops the server and removes the config.");
    process.stdout.write(`${out.join("\n")}\n`);
    if (restarter) unwatch = await startWatching(req, live, restarter, files, configPath);
    const newLogins = approver?.newLoginUrl ? loginLink(approver.loginUrl!, approver.newLoginUrl) : () => undefined;
    const signal = await stopped.finally(newLogins);
    unwatch();
    await live.app.stop();
    files.cleanup();
    process.stderr.write(
      `agentkit serve: stopped '${live.app.spec!.name}' on ${signal} after ${live.app.spec!.callsSeen} call(s); ` +
        `config removed, port released\n`,
    );
    return 0;
  } finally {
    unwatch();
    await live.app.stop().catch(ignoreRejection("stopping the app on the way out; the exit code is already decided"));
    files.cleanup();
    process.off("exit", files.cleanup);
  }
}

/** `--watch`: on a change, load the rebuilt module, stop the app, boot the new one on the same port, rewrite the config in place. */
async function startWatching(
  req: ServeRequest,
  live: LiveApp,
  restarter: Restarter,
  files: ServeFiles,
  configPath: string,
): Promise<() => void> {
  const { watchModuleDir } = await import("./serve-watch.js");
  let generation = 0;
  const say = (line: string): boolean => process.stderr.write(`agentkit serve --watch: ${line}\n`);
  return watchModuleDir(resolve(req.file), async () => {
    let next: ModuleClass;
    try {
      next = await restarter.load(++generation);
    } catch (err) {
      say(`the rebuild could not be loaded — ${err instanceof Error ? err.message : String(err)}; still serving the previous build`);
      return;
    }
    const port = Number(new URL(live.app.spec!.url ?? "").port);
    await live.app.stop();
    try {
      live.app = await restarter.boot(next, port);
      live.module = next;
    } catch (err) {
      say(`the rebuilt module failed to start (${errorLine(err)}); starting the previous build again`);
      live.app = await restarter.boot(live.module, port);
    }
    files.rewriteConfig(claudeDocument(live.app), configPath);
    const spec = live.app.spec!;
    say(
      `restarted '${spec.name}' with ${spec.toolNames.length} tool(s) at ${spec.url}; ${configPath} now holds its ` +
        `new token (the command line above is unchanged)`,
    );
  });
}

/** Print the login link on stderr (once) and offer Enter for a fresh one; returns what stops listening. */
function loginLink(loginUrl: string, newLoginUrl: () => string): () => void {
  const key = process.stdin.isTTY ? `\n${loginKeyHint()}` : "";
  process.stderr.write(
    `agentkit serve: log in to the approval inbox with: ${loginUrl}\n  (a one-time link: it logs one browser tab ` +
      `in, expires unused, and is printed only here)${key}\n`,
  );
  return offerNewLogins("serve", newLoginUrl);
}

/** The `{"mcpServers": ...}` entry a CLI needs to spawn this command as a stdio child. */
export function stdioEntry(
  modulePath: string,
  exportName: string | undefined,
  timeoutMs: number | undefined,
): { type: "stdio"; command: string; args: string[] } {
  const bin = fileURLToPath(new URL("./agentkit.js", import.meta.url));
  const args = [bin, "serve", modulePath, "--transport", "stdio"];
  if (exportName !== undefined) args.push("--export", exportName);
  if (timeoutMs !== undefined) args.push("--timeout-ms", String(timeoutMs));
  return { type: "stdio", command: process.execPath, args };
}

/**
 * Serve the module on this process's stdin/stdout through bootstrap (its
 * guard, audit file and deadline as over HTTP), until stdin closes or a
 * signal arrives.
 */
async function serveStdio(
  req: ServeRequest,
  module: ModuleClass,
  exportName: string,
  modulePath: string,
  bootstrap: typeof import("../mcp/di/index.js").bootstrap,
  stopped: Promise<NodeJS.Signals>,
): Promise<number> {
  const app = await bootstrap(module, { transport: "stdio", ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}) });
  try {
    const { getMcpServerMetadata } = await import("../mcp/di/index.js");
    const meta = getMcpServerMetadata(module)!;
    const tools = app.registry.tools();
    if (process.stdin.isTTY) {
      // A person ran the child by hand: say how a CLI should spawn it instead.
      const { qualifiedName, sanitiseToolName } = await import("../wire/names.js");
      const doc = JSON.stringify({ mcpServers: { [meta.name]: stdioEntry(modulePath, req.exportName, req.timeoutMs) } });
      const allowed = tools.filter((t) => !t.requiresApproval).map((t) => qualifiedName(meta.name, sanitiseToolName(t.name)));
      const words = [
        "claude",
        "--mcp-config",
        doc,
        "--strict-mcp-config",
        ...(allowed.length ? ["--allowedTools", allowed.sort().join(",")] : []),
      ];
      process.stderr.write(
        `agentkit serve: '${meta.name}' speaks MCP on stdin/stdout: it is the child a CLI spawns. Point Claude ` +
          `Code at it with:\n  ${shellLine(words)}\n`,
      );
    } else {
      process.stderr.write(`agentkit serve: '${meta.name}' (${exportName}) serving ${tools.length} tool(s) on stdio\n`);
    }
    if (meta.approvals !== undefined && !app.guard) {
      process.stderr.write(
        "agentkit serve: note: the approval server is not served on stdio (it is HTTP); requires-approval tools rely on the CLI's own prompts\n",
      );
    }
    const why = await Promise.race([app.closed.then(() => "stdin closed"), stopped]);
    // Stopped by a signal: stop reading, or the open stdin holds the process.
    if (why !== "stdin closed") process.stdin.destroy();
    process.stderr.write(`agentkit serve: '${meta.name}' stopped (${why})\n`);
    return 0;
  } finally {
    await app.stop();
  }
}
