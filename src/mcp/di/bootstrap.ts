/**
 * @module mcp/di/bootstrap
 * `bootstrap(Module)`, in two steps like Nest's scanner and injector: scan
 * (read the `@McpServer` metadata and the options, check all of it) and build
 * (container, providers, remote MCP connections, the tool registry, the
 * approval guard, serving) — and one running app, `McpApp`.
 */
import { OptionsError } from "../../errors/options.error.js";
import "reflect-metadata";
import type { DependencyContainer, InjectionToken } from "tsyringe";
import { tokenName } from "./request-scope.js";
import type { RunContext } from "../../context/run-context.js";
import type { ToolRegistry } from "../../tools/tool-registry.js";
import type { MCPClient } from "../client/index.js";
import type { McpServerSpec } from "../serve/index.js";
import { checkCliOptions } from "../serve/mcp-server-spec.js";
import type { ApprovalServer, ApprovalGuard } from "../approvals/index.js";
import { errorLine } from "../../util/format.js";
import { scanModule } from "./scan.js";
import { buildModule, type BuiltModule } from "./build.js";
import type { BootstrapOptions, ModuleClass } from "./bootstrap-options.js";

export type { BootstrapOptions, ModuleClass } from "./bootstrap-options.js";

/** What `McpApp.cliOptions()` returns; spread into `new ClaudeCliCognition({ model, ...app.cliOptions() })`. */
export interface McpAppCliOptions {
  /** The 0600 config files: the registry's, then (with approvals) the approval server's. Paths only: the bearer tokens never reach argv. */
  readonly mcpConfig: string[];
  /** Always `true`: only these servers. */
  readonly strictMcpConfig: true;
  /** The registry's `autoApprove` names: they run without a prompt; the rest prompt. */
  readonly allowedTools: string[];
  /** With approvals: `mcp__agentkit_approvals__approve`. */
  readonly permissionPromptTool?: string;
  /** With approvals: `""` (no ambient user/project/local settings). */
  readonly settingSources?: "";
  /** Present (and `false`) only when asked for: disables the CLI's built-in tools. */
  readonly builtinTools?: false;
}

/**
 * A running module: the container, the served spec, the approval server, and
 * one `stop()`. `arc-agentkit/mcp` exports the class as a type: `bootstrap()`
 * is the one way to build it.
 */
export class McpApp implements AsyncDisposable {
  private stopped = false;
  private markStopped!: () => void;
  private readonly stoppedPromise = new Promise<void>((r) => (this.markStopped = r));
  /** The module's child container (providers, remote providers, the registry). */
  readonly container: DependencyContainer;
  /** The module's tool registry. */
  readonly registry: ToolRegistry;
  /** The served registry (`null` when bootstrapped with `serve: false` or `transport: "stdio"`). */
  readonly spec: McpServerSpec | null;
  /** The approval server, when the module names `approvals` (never on stdio). */
  readonly approvals: ApprovalServer | null;
  /** The server-side approval guard (`guard: "asker"`), with its `decisions`; `null` otherwise. */
  readonly guard: ApprovalGuard | null;
  /** The open remote clients by alias, in the order they were opened. */
  readonly remotes: ReadonlyMap<string, MCPClient>;
  /** Where the registry is served: the loopback listener, this process's stdio, or nowhere (`serve: false`). */
  readonly transport: "http" | "stdio" | null;
  /**
   * Resolves once serving has ended: for `transport: "stdio"` when the peer
   * closes stdin (then `stop()` the app), otherwise when `stop()` ran.
   */
  readonly closed: Promise<void>;
  private readonly closers: Array<() => Promise<void>>;

  /** @internal built by `bootstrap` */
  constructor(
    /** The module class. */
    readonly module: ModuleClass,
    built: BuiltModule,
    /** The run context served calls use. */
    readonly ctx: RunContext,
  ) {
    this.container = built.container;
    this.registry = built.registry;
    this.spec = built.spec;
    this.approvals = built.approvals;
    this.guard = built.guard;
    this.remotes = built.remotes;
    this.closers = built.closers;
    this.transport = built.stdio ? "stdio" : built.spec ? "http" : null;
    this.closed = built.stdio ? Promise.race([built.stdio.closed, this.stoppedPromise]) : this.stoppedPromise;
  }

  /**
   * Options for `ClaudeCliCognition`: `mcpConfig` = the registry's 0600
   * config file, then the approval server's (paths, never the documents: the
   * tokens stay out of the CLI's argv), `strictMcpConfig`, `allowedTools` =
   * the registry's auto-approve names, and with approvals the approval tool
   * as `permissionPromptTool` and `settingSources: ""` (so ambient settings
   * cannot settle a call first). `{ builtinTools: false }` adds
   * `builtinTools: false`. Throws `OptionsError` for an app bootstrapped with
   * `serve: false`.
   */
  cliOptions(options: { builtinTools?: boolean } = {}): McpAppCliOptions {
    if (!this.spec)
      throw new OptionsError("McpApp.cliOptions()", "options", "McpApp.cliOptions(): this app was bootstrapped with serve: false");
    const spec = this.spec.cliOptions(checkCliOptions(options, "McpApp.cliOptions"));
    const approvals = this.approvals?.cliOptions();
    return {
      mcpConfig: [...spec.mcpConfig, ...(approvals?.mcpConfig ?? [])],
      strictMcpConfig: true,
      allowedTools: [...this.spec.autoApprove],
      ...(spec.builtinTools === false ? { builtinTools: false as const } : {}),
      ...(approvals ? { permissionPromptTool: approvals.permissionPromptTool, settingSources: approvals.settingSources } : {}),
    };
  }

  /**
   * The instance the module's container holds for `token`, as Nest's
   * `app.get(Token)`: a provider (a class provider is the module's
   * singleton), `ToolRegistry`, `RunContext`, `LOGGER`, or a remote's token
   * (`mcpToolsToken("fs")`, ...). Classes the container would build on the fly
   * (not provided) are refused rather than built as a stray second instance.
   *
   * @throws OptionsError naming the token and the module when it is not provided here.
   */
  get<T>(token: InjectionToken<T>): T {
    if (!this.container.isRegistered(token, true)) {
      const name = (this.module as { name?: string }).name ?? "the module";
      throw new OptionsError(
        "McpApp.get",
        "token",
        `McpApp.get(${tokenName(token)}): ${tokenName(token)} is not provided in ${name}'s container. Add it to ` +
          `@McpServer({ providers: [...] }) of ${name} or of a module it imports, or register it in the container ` +
          `passed to bootstrap(${name}, { container })`,
      );
    }
    return this.container.resolve(token);
  }

  /** Options for `CodexCliCognition` (`asCodexMcp(spec)`); the server-side guard stands in for approvals. */
  codexOptions(): ReturnType<McpServerSpec["codexOptions"]> {
    if (!this.spec)
      throw new OptionsError("McpApp.codexOptions()", "options", "McpApp.codexOptions(): this app was bootstrapped with serve: false");
    return this.spec.codexOptions();
  }

  /** Stop everything, in reverse order of start: approvals, listener, remote clients. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const errors: unknown[] = [];
    for (const close of [...this.closers].reverse()) {
      try {
        await close();
      } catch (err) {
        errors.push(err);
      }
    }
    this.container.clearInstances();
    this.markStopped();
    if (errors.length)
      throw new AggregateError(errors, `McpApp.stop(): ${errors.length} part(s) failed to stop: ${errors.map(errorLine).join("; ")}`);
  }

  /** Same as `stop()`: `await using app = await bootstrap(...)`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

/**
 * Bring a `@McpServer` module up, in two steps. Scan: the metadata and
 * `options` are read and checked — names by `serveRegistry`'s rules,
 * providers and `@Tool` classes (every constructor dependency provided, the
 * decorator metadata present), `approvals`, how it is served — and which
 * classes depend on the per-call `RunContext` (they, and whatever depends on
 * them, are built per call). Build: a child container; the providers; each
 * remote MCP server opened (a failure names the alias and the server);
 * colliding remote tool names refused; the `@Tool` classes built into the
 * registry; then the registry served — on the loopback listener with an
 * `ApprovalServer` when `approvals` is set, or with `transport: "stdio"` on
 * this process's stdin/stdout — behind the server-side approval guard (and
 * its `auditPath`) when `guard: "asker"`. Any failure stops what was started
 * and throws `BootstrapError` naming what and the fix.
 * @throws OptionsError (before anything is built) for an unknown or
 *   wrong-kind option in `options`, naming it and what is accepted.
 * @throws BootstrapError for a module that cannot be built or served.
 */
export async function bootstrap(module: ModuleClass, options: BootstrapOptions = {}): Promise<McpApp> {
  const plan = scanModule(module, options);
  return new McpApp(module, await buildModule(plan), plan.ctx);
}
