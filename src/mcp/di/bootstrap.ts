/**
 * @module mcp/di/bootstrap
 * `bootstrap(Module)`: reads `@McpServer` metadata and acts — container,
 * providers, remote MCP connections, the tool registry, the loopback listener
 * and the approval guard — and returns one running app.
 */
import "reflect-metadata";
import { container as rootContainer, type DependencyContainer, type InjectionToken } from "tsyringe";
import { TOKENS } from "../../keys.js";
import { RunContext } from "../../context/run-context.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { FunctionTool } from "../../tools/function-tool.js";
import { getToolMetadata, type ToolClass } from "../../tools/tool.decorator.js";
import { getMcpServerMetadata, type McpServerOptions, type Provider } from "./mcp-server.decorator.js";
import { mcpClientToken, mcpPromptsToken, mcpResourcesToken, mcpToolsToken } from "./remote.js";
import { BootstrapError } from "./bootstrap.error.js";
import { MCPClient, mcpPrompts, mcpResources, mcpTools } from "../client/index.js";
import { serveRegistry, type McpServerSpec } from "../serve/index.js";
import { ApprovalServer, approvalGuard, type ApprovalGuard } from "../approvals/index.js";
import { errorLine } from "../../util/format.js";
import type { Asker } from "../../agents/elicitation.js";
import type { Tool } from "../../tools/tool.js";

/** A module class (decorated with `@McpServer`). */
export type ModuleClass = abstract new (...args: never[]) => unknown;

/** Options of `bootstrap`. */
export interface BootstrapOptions {
  /** The parent container; a child of it is created for the app. Default: tsyringe's root container. */
  readonly container?: DependencyContainer;
  /** The run context served calls and approvals use. Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
  /** Override the module's transport (e.g. the `agentkit serve --transport` flag). */
  readonly transport?: "http" | "stdio";
  /** Override the module's timeout. */
  readonly timeoutMs?: number;
  /** Serve the registry (default `true`); `false` builds the container and remote providers only. */
  readonly serve?: boolean;
}

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

/** A running module: the container, the served spec, the approval server, and one `stop()`. */
export class McpApp implements AsyncDisposable {
  private stopped = false;

  /** @internal built by `bootstrap` */
  constructor(
    /** The module class. */
    readonly module: ModuleClass,
    /** The module's child container (providers, remote providers, the registry). */
    readonly container: DependencyContainer,
    /** The module's tool registry. */
    readonly registry: ToolRegistry,
    /** The served registry (`null` when bootstrapped with `serve: false`). */
    readonly spec: McpServerSpec | null,
    /** The approval server, when the module names `approvals`. */
    readonly approvals: ApprovalServer | null,
    /** The server-side approval guard (`guard: "asker"`), with its `decisions`; `null` otherwise. */
    readonly guard: ApprovalGuard | null,
    /** The open remote clients by alias, in the order they were opened. */
    readonly remotes: ReadonlyMap<string, MCPClient>,
    private readonly closers: Array<() => Promise<void>>,
    /** The run context served calls use. */
    readonly ctx: RunContext,
  ) {}

  /**
   * Options for `ClaudeCliCognition`: `mcpConfig` = the registry's 0600
   * config file, then the approval server's (paths, never the documents: the
   * tokens stay out of the CLI's argv), `strictMcpConfig`, `allowedTools` =
   * the registry's auto-approve names, and with approvals the approval tool
   * as `permissionPromptTool` and `settingSources: ""` (so ambient settings
   * cannot settle a call first). `{ builtinTools: false }` adds
   * `builtinTools: false`. Throws `TypeError` for an app bootstrapped with
   * `serve: false`.
   */
  cliOptions(options: { builtinTools?: boolean } = {}): McpAppCliOptions {
    if (!this.spec) throw new TypeError("McpApp.cliOptions(): this app was bootstrapped with serve: false");
    const spec = this.spec.cliOptions(options);
    const approvals = this.approvals?.cliOptions();
    return {
      mcpConfig: [...spec.mcpConfig, ...(approvals?.mcpConfig ?? [])],
      strictMcpConfig: true,
      allowedTools: [...this.spec.autoApprove],
      ...(spec.builtinTools === false ? { builtinTools: false as const } : {}),
      ...(approvals ? { permissionPromptTool: approvals.permissionPromptTool, settingSources: approvals.settingSources } : {}),
    };
  }

  /** Options for `CodexCliCognition` (`asCodexMcp(spec)`); the server-side guard stands in for approvals. */
  codexOptions(): ReturnType<McpServerSpec["codexOptions"]> {
    if (!this.spec) throw new TypeError("McpApp.codexOptions(): this app was bootstrapped with serve: false");
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
    if (errors.length) throw new AggregateError(errors, `McpApp.stop(): ${errors.length} part(s) failed to stop: ${errors.map(errorLine).join("; ")}`);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

function registerProvider(c: DependencyContainer, p: Provider): void {
  if (typeof p === "function") c.registerSingleton(p as never);
  else if ("useClass" in p) c.register(p.provide, { useClass: p.useClass as never });
  else if ("useValue" in p) c.register(p.provide, { useValue: p.useValue });
  else c.register(p.provide, { useFactory: p.useFactory });
}

function describeServer(s: object): string {
  const o = s as { command?: string; args?: readonly string[]; url?: string };
  if (typeof o.command === "string") return `stdio: ${[o.command, ...(o.args ?? [])].join(" ")}`;
  return `http: ${o.url}`;
}

function tokenName(t: unknown): string {
  if (typeof t === "function") return t.name || "anonymous class";
  if (typeof t === "symbol") return t.description ?? t.toString();
  return String(t);
}

/** Why `cls` cannot be built: the first constructor dependency the container cannot supply. */
function unresolvable(c: DependencyContainer, cls: object): string | null {
  const types = (Reflect.getMetadata("design:paramtypes", cls) as unknown[] | undefined) ?? [];
  const tokens = (Reflect.getOwnMetadata("injectionTokens", cls) as Record<number, unknown> | undefined) ?? {};
  for (let i = 0; i < types.length; i++) {
    const token = tokens[i] ?? types[i];
    if (token === RunContext) continue;
    const t = (token as { token?: unknown })?.token ?? token;
    if (typeof t === "function" && (t === Object || t === Array || t === String || t === Number || t === Boolean)) {
      return `argument ${i} has no injectable type (${tokenName(t)}) — use @inject(token) or a class type, and import it as a value, not with 'import type'`;
    }
    if (!c.isRegistered(t as InjectionToken, true) && typeof t !== "function") return `argument ${i} (${tokenName(t)}) is not provided`;
    if (typeof t === "function" && !c.isRegistered(t as InjectionToken, true)) {
      try {
        c.resolve(t as InjectionToken);
      } catch {
        return `argument ${i} (${tokenName(t)}) is not provided — add it to providers`;
      }
    }
  }
  return null;
}

/**
 * Build a `Tool` from a `@Tool` class inside `c`. A class whose constructor
 * takes a `RunContext` is built per call in a child container holding that
 * call's context (request scope); any other class is built once.
 */
function classTool(c: DependencyContainer, cls: ToolClass<never>): Tool {
  const meta = getToolMetadata(cls)!;
  const types = (Reflect.getMetadata("design:paramtypes", cls) as unknown[] | undefined) ?? [];
  const tokens = (Reflect.getOwnMetadata("injectionTokens", cls) as Record<number, unknown> | undefined) ?? {};
  const perCall = types.some((t, i) => t === RunContext || tokens[i] === TOKENS.RunContext);
  if (!perCall) {
    const instance = c.resolve(cls as never) as { run(input: never, ctx: RunContext): unknown };
    return new FunctionTool(meta, (input: never, ctx: RunContext) => instance.run(input, ctx), `class ${cls.name}`);
  }
  return new FunctionTool(
    meta,
    (input: never, ctx: RunContext) => {
      const scope = c.createChildContainer();
      scope.register(RunContext, { useValue: ctx });
      scope.register(TOKENS.RunContext, { useValue: ctx });
      const instance = scope.resolve(cls as never) as { run(input: never, ctx: RunContext): unknown };
      return instance.run(input, ctx);
    },
    `class ${cls.name}`,
  );
}

/**
 * Bring a `@McpServer` module up. In order: a child container; the providers;
 * the run context; each remote MCP server opened (a failure names the alias
 * and the server, and closes what was opened); colliding remote tool names
 * refused; the `@Tool` classes built into the registry; the registry served
 * on the loopback listener (with the server-side approval guard when
 * `guard: "asker"`); and an `ApprovalServer` when `approvals` is set. Any
 * failure stops what was started and throws `BootstrapError`.
 */
export async function bootstrap(module: ModuleClass, options: BootstrapOptions = {}): Promise<McpApp> {
  const name = module?.name ?? String(module);
  const meta = getMcpServerMetadata(module);
  if (!meta) throw new BootstrapError(name, "module", `${name} is not decorated with @McpServer({ name, tools, ... })`);
  const c = (options.container ?? rootContainer).createChildContainer();
  const ctx = options.ctx ?? new RunContext();
  const closers: Array<() => Promise<void>> = [];
  const remotes = new Map<string, MCPClient>();
  const unwind = async () => {
    for (const close of [...closers].reverse()) await close().catch(() => {});
  };
  try {
    try {
      for (const p of meta.providers ?? []) registerProvider(c, p);
    } catch (err) {
      throw new BootstrapError(name, "providers", `a provider could not be registered: ${errorLine(err)}`, { cause: err });
    }
    c.register(RunContext, { useValue: ctx });
    c.register(TOKENS.RunContext, { useValue: ctx });

    const owners = new Map<string, string>();
    for (const r of meta.remotes ?? []) {
      let client: MCPClient;
      try {
        client = await MCPClient.open(r.server);
      } catch (err) {
        throw new BootstrapError(name, "remote", `remote '${r.alias}' (${describeServer(r.server)}) could not be opened: ${(err as Error).message}`, { cause: err });
      }
      closers.push(() => client.close());
      remotes.set(r.alias, client);
      const tools = await mcpTools(client, { prefix: r.prefix });
      for (const t of tools) {
        const prev = owners.get(t.name);
        if (prev) {
          throw new BootstrapError(name, "remote", `remotes '${prev}' and '${r.alias}' both provide a tool named '${t.name}'; give one of them a prefix: remote('${r.alias}', server, { prefix: '${r.alias}_' })`);
        }
        owners.set(t.name, r.alias);
      }
      c.register(mcpClientToken(r.alias), { useValue: client });
      c.register(mcpToolsToken(r.alias), { useValue: tools });
      c.register(mcpResourcesToken(r.alias), { useValue: mcpResources(client, { name: r.alias }) });
      c.register(mcpPromptsToken(r.alias), { useValue: await mcpPrompts(client) });
    }

    const registry = new ToolRegistry();
    c.register(ToolRegistry, { useValue: registry });
    c.register(TOKENS.ToolRegistry, { useValue: registry });
    for (const t of meta.tools) {
      if (typeof t === "function") {
        const why = unresolvable(c, t);
        if (why) throw new BootstrapError(name, "tools", `cannot build @Tool class ${t.name}: its constructor ${why} (add the missing class or token to providers of @McpServer on ${name})`);
        try {
          registry.register(classTool(c, t));
        } catch (err) {
          throw new BootstrapError(name, "tools", `cannot build @Tool class ${t.name}: ${(err as Error).message}`, { cause: err });
        }
      } else registry.register(t);
    }

    let asker: Asker | undefined;
    if (meta.approvals !== undefined) {
      try {
        asker = c.resolve(meta.approvals);
      } catch (err) {
        throw new BootstrapError(name, "approvals", `'approvals' names ${tokenName(meta.approvals)}, which the container cannot resolve to an Asker — add it to providers`, { cause: err });
      }
      if (!asker || typeof asker.ask !== "function") throw new BootstrapError(name, "approvals", `'approvals' resolved to something without ask(request): ${tokenName(meta.approvals)}`);
    }
    const timeoutMs = options.timeoutMs ?? meta.timeoutMs;

    let spec: McpServerSpec | null = null;
    let guard: ApprovalGuard | null = null;
    if (options.serve !== false) {
      guard = meta.guard === "asker" && asker ? approvalGuard({ asker, timeoutMs, ctx, ...(meta.auditPath ? { auditPath: meta.auditPath } : {}) }) : null;
      try {
        spec = await serveRegistry(registry, {
          name: meta.name,
          ctx,
          transport: options.transport ?? meta.transport,
          ...(meta.command ? { command: meta.command } : {}),
          ...(meta.env ? { env: { ...meta.env } } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(meta.auth ? { auth: meta.auth } : {}),
          ...(meta.port !== undefined ? { port: meta.port } : {}),
          ...(guard ? { guard } : {}),
        });
        const s = spec;
        closers.push(() => s.stop());
        await s.start();
      } catch (err) {
        throw new BootstrapError(name, "serve", `the '${meta.name}' server could not start: ${(err as Error).message}`, { cause: err });
      }
    }

    let approvals: ApprovalServer | null = null;
    if (asker && options.serve !== false) {
      const a = new ApprovalServer({
        asker,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        autoAllow: meta.autoAllow ?? [],
        ctx,
        ...(meta.auditPath ? { auditPath: meta.auditPath } : {}),
      });
      closers.push(() => a.stop());
      try {
        await a.start();
      } catch (err) {
        throw new BootstrapError(name, "approvals", `the approval server could not start: ${(err as Error).message}`, { cause: err });
      }
      approvals = a;
    }
    return new McpApp(module, c, registry, spec, approvals, guard, remotes, closers, ctx);
  } catch (err) {
    await unwind();
    c.clearInstances();
    throw err;
  }
}

/** The options a module declared (for tools that print how to connect). */
export function moduleOptions(module: ModuleClass): Readonly<McpServerOptions> | undefined {
  return getMcpServerMetadata(module);
}
