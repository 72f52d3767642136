/**
 * @module mcp/serve/mcp-server-spec
 * `McpServerSpec`: what `serveRegistry` hands back — the config document and
 * its 0600 file, the qualified tool names, the safety declarations, and (for
 * HTTP) the loopback listener — with a re-enterable start/stop lifecycle.
 */
import { asCodexMcp, type CodexMcpOptions } from "../../wire/codex-mcp.js";
import type { LoopbackMcpTransport } from "../loopback/loopback-transport.js";
import { removeMcpConfig, rewriteMcpConfig, writeMcpConfig, type WrittenMcpConfig } from "../../wire/mcp-config-file.js";
import type { SdkServer } from "../peers/sdk-server.js";
import type { ServedCatalog } from "./served-catalog.js";
import type { ServedTasks } from "./served-tasks.js";
import { ServedExtras, toServablePrompts, toServableResource, type PromptSource, type ResourceSource } from "./served-extras.js";
import { ToolRegistry, type ToolLike } from "../../tools/tool-registry.js";
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt } from "../../options/option-checks.js";
import { argumentError, stopInflight, subscribedTo, type CallCounter } from "./served-server.js";
import type { ServerEvent } from "@modelcontextprotocol/server";
import { ignoreRejection } from "../../util/logger.js";

/** The `mcpServers` entry of an HTTP spec. */
export interface HttpServerEntry {
  readonly type: "http";
  readonly url: string;
  /** Present with `auth: "token"`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The `mcpServers` entry of a stdio spec: the CLI spawns `command args...` with `env`. */
export interface StdioServerEntry {
  readonly type: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** The document `--mcp-config` reads: `{"mcpServers": {"<name>": {...}}}`. */
export interface McpConfigDocument {
  mcpServers: Record<string, HttpServerEntry | StdioServerEntry>;
}

/**
 * What `cliOptions()` returns; spread into `new ClaudeCliCognition({ model, ...spec.cliOptions() })`
 * (with approvals too: `mergeCliOptions(spec.cliOptions(), approvals.cliOptions())`,
 * which concatenates the `mcpConfig` lists that a plain spread would overwrite).
 */
export interface SpecCliOptions {
  /**
   * `[configPath]`: the path of the 0600 config file, never the document
   * itself — argv is world-readable (`ps`, `/proc/<pid>/cmdline`), and the
   * document holds the bearer token. The CLI reads the file when it starts,
   * so build and run the cognition while the spec is serving.
   */
  readonly mcpConfig: string[];
  /** Always `true`: only these servers, not whatever `.mcp.json` the working directory or home defines. */
  readonly strictMcpConfig: true;
  /** Present (and `false`) only when asked for: disables the CLI's built-in Read, Grep, Bash... */
  readonly builtinTools?: false;
}

/** The options `McpServerSpec.cliOptions` accepts, declared once. */
const CLI_OPTIONS_OPTIONS = { builtinTools: opt.boolean() } as const;

/** @internal `cliOptions({ builtinTools })` checked under `where` (the spec's, or the app's that passes it on). */
export function checkCliOptions(options: unknown, where: string): { readonly builtinTools: boolean | undefined } {
  return checkOptions(options, where, CLI_OPTIONS_OPTIONS, { builtInTools: "did you mean 'builtinTools'?" });
}

/** @internal How `serveRegistry` builds a spec. */
export interface SpecInit {
  readonly catalog: ServedCatalog;
  readonly counter: CallCounter;
  /** Where to write the config file (default: a fresh `agentkit-*` directory). */
  readonly configPath?: string;
  readonly listener: LoopbackMcpTransport | null;
  readonly stdio: { readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> } | null;
  /** True when calls pass a server-side guard (`serveRegistry({ guard })`). */
  readonly guarded?: boolean;
  /** What Codex is told to wait for one call, in seconds (`codexToolTimeoutSec`); `null`: Codex's default. */
  readonly toolTimeoutSec?: number | null;
  /** The resources and prompts served beside the tools. */
  readonly extras?: ServedExtras;
  /** The live sessions' servers (HTTP), for `list_changed`. */
  readonly live?: Set<SdkServer>;
  /** The module's tasks (HTTP): their expiry sweep runs between `start()` and `stop()`. */
  readonly tasks?: ServedTasks;
}

/**
 * A served registry. Built by `serveRegistry()`, which has already reserved
 * the port (HTTP) and written the 0600 config file, so the spec is complete
 * enough to build a CLI cognition before anything serves.
 *
 * Lifecycle: `start()` serves (HTTP; stdio has nothing to run here) and
 * rewrites the config file if a previous `stop()` removed it, so a spec is
 * re-enterable; `stop()` releases the port and deletes the config file (and
 * its directory, only if the spec created it): a stale config is a live
 * credential naming a port something else may bind next. Both idempotent.
 * `await using spec = await serveRegistry(...)` stops it on scope exit.
 * `arc-agentkit/mcp` exports the class as a type: `serveRegistry()` is the one way to build it.
 */
export class McpServerSpec implements AsyncDisposable {
  /** The server name; tools are addressed `mcp__<name>__<tool>`. */
  readonly name: string;
  readonly transport: "http" | "stdio";
  /** The loopback endpoint for HTTP; `null` for stdio (there is no endpoint to have). */
  readonly url: string | null;
  /** `{ Authorization: "Bearer <token>" }` for a non-CLI client; `{}` with `auth: "none"` or stdio. */
  readonly authHeaders: Readonly<Record<string, string>>;
  /** The config file (it exists between serving and `stop()`). */
  readonly configPath: string;
  /** Sorted qualified names of every served tool: the authoritative list of what the CLI will see. */
  get toolNames(): readonly string[] {
    return this.catalog.toolNames;
  }
  /** Original tool name -> qualified name (sanitising may have renamed some). */
  get mcpNames(): Readonly<Record<string, string>> {
    return this.catalog.mcpNames;
  }
  /** Sorted qualified names of the tools declaring `requiresApproval` (a statement the CLI reads, not a check this server performs). */
  get requiresApproval(): readonly string[] {
    return this.catalog.requiresApproval;
  }
  /** Sorted qualified names of the others: what to pass as `allowedTools`, so the CLI prompts for the rest. */
  get autoApprove(): readonly string[] {
    return this.catalog.autoApprove;
  }
  /** The served tools' caps, sorted and deduplicated (for a `RunPolicy` check on your side). */
  get caps(): readonly string[] {
    return this.catalog.caps;
  }
  /**
   * True when a server-side guard (`serveRegistry({ guard })`) checks calls
   * before they run; `codexOptions()` then lets Codex send `requiresApproval`
   * tools too, because the guard, not Codex, asks the human.
   */
  readonly guarded: boolean;
  /**
   * How long `codexOptions()` tells Codex to wait for one call, in seconds:
   * the spec's `timeoutMs` plus 30 s, or 365 days without one, so a person
   * may take their time (Codex's own default, 300 s, would end the call).
   * `null` when `heartbeatMs` is 0: Codex's default stays.
   */
  readonly toolTimeoutSec: number | null;
  /** For stdio: what the CLI spawns. */
  readonly stdio?: { readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> };

  private readonly catalog: ServedCatalog;
  private readonly extras: ServedExtras;
  private readonly live: Set<SdkServer> | undefined;
  private readonly counter: CallCounter;
  private readonly config: WrittenMcpConfig;
  private readonly listener: LoopbackMcpTransport | null;
  private readonly tasks: ServedTasks | undefined;
  private configWritten = true;
  private started = false;
  private queue: Promise<unknown> = Promise.resolve();

  /** @internal Use `serveRegistry()`. Writes the 0600 config file. */
  constructor(init: SpecInit) {
    const { catalog } = init;
    this.name = catalog.server;
    this.transport = init.listener ? "http" : "stdio";
    this.url = init.listener ? init.listener.url : null;
    this.authHeaders = init.listener ? init.listener.authHeaders : Object.freeze({});
    this.catalog = catalog;
    this.extras = init.extras ?? new ServedExtras();
    this.live = init.live;
    if (init.stdio) this.stdio = init.stdio;
    this.guarded = init.guarded ?? false;
    this.toolTimeoutSec = init.toolTimeoutSec ?? null;
    this.counter = init.counter;
    this.listener = init.listener;
    this.tasks = init.tasks;
    this.config = writeMcpConfig(this.configDocument(), { configPath: init.configPath });
    this.configPath = this.config.path;
  }

  /**
   * The `ToolArgumentError` text when `args` do not fit the schema of this
   * server's tool `qualifiedName` (`mcp__<server>__<tool>`); `undefined` when
   * they fit, or when the name is not one of this server's tools. What
   * `ApprovalServer({ servers })` checks before anyone is asked.
   */
  argumentError(qualifiedName: string, args: Record<string, unknown>): string | undefined {
    for (const served of this.catalog.byName.values()) {
      if (served.qualifiedName === qualifiedName) return argumentError(served, args);
    }
    return undefined;
  }

  /**
   * `tools/call` requests that reached this server, unknown names included (zero means "never called" or "never
   * reached": two different bugs).
   */
  get callsSeen(): number {
    return this.counter.calls;
  }

  /** True between `start()` and `stop()`. */
  get serving(): boolean {
    return this.started;
  }

  /** A fresh copy of the config document (the file's content). */
  configDocument(): McpConfigDocument {
    let entry: HttpServerEntry | StdioServerEntry;
    if (this.stdio) {
      entry = { type: "stdio", command: this.stdio.command, args: [...this.stdio.args], env: { ...this.stdio.env } };
    } else {
      entry = Object.keys(this.authHeaders).length
        ? { type: "http", url: this.url!, headers: { ...this.authHeaders } }
        : { type: "http", url: this.url! };
    }
    return { mcpServers: { [this.name]: entry } };
  }

  /**
   * Options for `ClaudeCliCognition`: `mcpConfig: [configPath]` (the 0600
   * file's path: the token stays in the file and never reaches the CLI's
   * argv, which any local user can read), `strictMcpConfig: true` always, and
   * `builtinTools: false` only when asked — disabling the CLI's own tools is a
   * statement about what the session can do at all, not MCP wiring, so a
   * strict-config flag must not quietly make it.
   * @throws OptionsError for an unknown option (`builtInTools`), a value that
   *   is not `true`/`false`, or `null` options.
   */
  cliOptions(options: { builtinTools?: boolean } = {}): SpecCliOptions {
    const o = checkCliOptions(options, "McpServerSpec.cliOptions");
    const out: { mcpConfig: string[]; strictMcpConfig: true; builtinTools?: false } = {
      mcpConfig: [this.configPath],
      strictMcpConfig: true,
    };
    if (o.builtinTools === false) out.builtinTools = false;
    return out;
  }

  /** Options for `CodexCliCognition`: `asCodexMcp(this)` (the token travels in `env`, never in argv). */
  codexOptions(): CodexMcpOptions {
    return asCodexMcp(this);
  }

  /**
   * Serve. Idempotent. Rewrites the config file first when a previous
   * `stop()` deleted it. HTTP: after a `stop()` the same port is bound again;
   * if it was taken meanwhile this rejects with that `EADDRINUSE` error and
   * the config is removed again.
   */
  start(): Promise<void> {
    return this.serialise(async () => {
      if (this.started) return;
      if (!this.configWritten) {
        rewriteMcpConfig(this.config, this.configDocument());
        this.configWritten = true;
      }
      try {
        await this.listener?.start();
        this.tasks?.startSweeping();
      } catch (err) {
        this.removeConfig();
        throw err;
      }
      this.started = true;
    });
  }

  /** Stop serving, release the port and delete the config file (and the directory only if the spec created it). Idempotent. */
  stop(): Promise<void> {
    return this.serialise(async () => {
      this.started = false;
      this.tasks?.stopSweeping();
      try {
        if (this.listener && this.counter.inflight?.size) {
          // Answer the calls in flight before their streams close.
          stopInflight(this.counter);
          await new Promise((r) => setTimeout(r, 20));
        }
        await this.listener?.stop();
      } finally {
        this.removeConfig();
      }
    });
  }

  /**
   * Serve one more tool (a `Tool` or a `@Tool` class) on the running spec and
   * send `notifications/tools/list_changed` to every live session. Throws
   * `OptionsError` for a tool without a schema, on a stdio spec, or for a
   * name already served; code `mcp_name` as `serveRegistry` does.
   */
  addTool(tool: ToolLike): void {
    this.checkGrowable("addTool");
    const t = ToolRegistry.fromTools([tool]).tools()[0]!;
    if (!t.schema)
      throw new OptionsError(
        "McpServerSpec.addTool",
        "tool",
        `addTool: tool '${t.name}' has no schema; MCP serves only tools with an inputSchema`,
      );
    if (this.catalog.mcpNames[t.name] !== undefined)
      throw new OptionsError("McpServerSpec.addTool", "tool", `addTool: a tool named '${t.name}' is already served`);
    this.catalog.add(t);
    this.notify((s) => s.sendToolListChanged(), { kind: "tools_list_changed" });
  }

  /**
   * Serve one more resource (see `serveRegistry`'s `resources`) and send `notifications/resources/list_changed`. Throws
   * as `addTool` does.
   */
  addResource(resource: ResourceSource): void {
    this.checkGrowable("addResource");
    this.extras.addResource(toServableResource(resource, 0));
    this.notify((s) => s.sendResourceListChanged(), { kind: "resources_list_changed" });
  }

  /** Serve one more prompt (see `serveRegistry`'s `prompts`) and send `notifications/prompts/list_changed`. Throws as `addTool` does. */
  addPrompt(prompt: PromptSource): void {
    this.checkGrowable("addPrompt");
    for (const p of toServablePrompts([prompt])) this.extras.addPrompt(p);
    this.notify((s) => s.sendPromptListChanged(), { kind: "prompts_list_changed" });
  }

  private checkGrowable(what: string): void {
    if (!this.listener)
      throw new OptionsError(
        what,
        "transport",
        `${what}: a stdio spec serves from the child the CLI spawns; register there (serveRegistryStdio), not on this spec`,
      );
  }

  /**
   * Tell the clients that resource `uri` changed (`notifications/resources/updated`):
   * every 2025-era session that subscribed to it (`resources/subscribe`) and
   * every 2026-07-28 `subscriptions/listen` stream that asked for it. Call it
   * when what `read()` returns for `uri` is no longer what it returned; a
   * client that did not subscribe hears nothing. HTTP specs only (a stdio
   * spec serves from the child the CLI spawns).
   *
   * @throws OptionsError on a stdio spec, or when `uri` is not a non-empty string.
   */
  resourceUpdated(uri: string): void {
    this.checkGrowable("resourceUpdated");
    if (typeof uri !== "string" || uri === "")
      throw new OptionsError(
        "McpServerSpec.resourceUpdated",
        "uri",
        `resourceUpdated: uri must be a non-empty string (the resource's URI as clients read it), got ${JSON.stringify(uri)}`,
      );
    this.notify((s) => (subscribedTo(s, uri) ? s.sendResourceUpdated({ uri }) : Promise.resolve()), { kind: "resource_updated", uri });
  }

  /**
   * Best-effort: a session that declared no such capability (it began before the first resource or prompt) is skipped.
   * 2026-07-28 listeners hear `event`.
   */
  private notify(send: (s: SdkServer) => Promise<void>, event: ServerEvent): void {
    this.listener?.publish(event);
    for (const s of this.live ?? []) {
      try {
        send(s).catch(ignoreRejection("a list-changed notification to a session that may have gone"));
      } catch {
        // the session did not declare that list; its next initialize will
      }
    }
  }

  /** Same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private removeConfig(): void {
    if (!this.configWritten) return;
    this.configWritten = false;
    removeMcpConfig(this.config);
  }

  private serialise(op: () => Promise<void>): Promise<void> {
    const next = this.queue.then(op, op);
    // Swallow kept: the tail only orders the next lifecycle step; the caller awaits `next`.
    this.queue = next.catch(() => {});
    return next;
  }
}
