/**
 * @module mcp/di/scan
 * bootstrap's first step, like Nest's scanner: read a module's metadata and
 * the bootstrap options and check all of it — names, providers, remotes,
 * approvals, tool classes, request scope, how it is served — before anything
 * is built, opened or bound. The result is a plan the build step follows.
 */
import { checkTasksOption } from "../serve/served-tasks.js";
import { checkOptions, opt } from "../../options/option-checks.js";
import { OptionsError } from "../../errors/options.error.js";
import { container as rootContainer, type DependencyContainer, type InjectionToken } from "tsyringe";
import { LOGGER, TOKENS } from "../../keys.js";
import { RunContext } from "../../context/run-context.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { getToolMetadata, type ToolClass } from "../../tools/tool.decorator.js";
import type { Tool } from "../../tools/tool.js";
import type { Asker } from "../../contracts/elicitation.js";
import { checkQualifiedName, sanitiseToolName } from "../../wire/names.js";
import { getMcpServerMetadata } from "./mcp-server.decorator.js";
import type { McpServerOptions, Provider } from "./mcp-server-options.js";
import { mcpClientToken, mcpPromptsToken, mcpResourcesToken, mcpSkillsToken, mcpToolsToken } from "./remote.js";
import { BootstrapError } from "./bootstrap.error.js";
import { composeModule } from "./module-imports.js";
import { ScopeScanner, providerClass, providerToken, tokenName, type ScopePath } from "./request-scope.js";
import type { BootstrapOptions, ModuleClass } from "./bootstrap-options.js";
import type { PromptSource, ResourceSource } from "../serve/served-extras.js";

/**
 * How the registry is served: not at all (`serve: false`); on the loopback
 * listener; as the `command` a CLI spawns (the module's `transport: "stdio"`,
 * parent side); or on this process's own stdin/stdout (the child side).
 */
export type ServeMode = "none" | "listener" | "command" | "stdio";

/** A provider, with why it is built per call (`null`: a module singleton, or a value or factory). */
export interface PlannedProvider {
  readonly provider: Provider;
  readonly perCall: ScopePath;
}

/** A tool: a `@Tool` class (built per call when `perCall`) or a `Tool` object. */
export interface PlannedTool {
  readonly tool: ToolClass<never> | Tool;
  readonly perCall: ScopePath;
}

/** A served resource or prompt: a decorated class (built per request when `perCall`) or an object. */
export interface PlannedItem<T> {
  readonly item: T;
  readonly perCall: ScopePath;
}

/** Everything bootstrap will do, checked. */
export interface ModulePlan {
  readonly module: ModuleClass;
  /** The module class's name (for messages). */
  readonly name: string;
  readonly meta: Readonly<McpServerOptions>;
  readonly parent: DependencyContainer;
  readonly ctx: RunContext;
  readonly providers: readonly PlannedProvider[];
  readonly tools: readonly PlannedTool[];
  readonly resources: readonly PlannedItem<ResourceSource>[];
  /** The `prompts` option; a record form is kept as it is (it holds no classes). */
  readonly prompts: readonly PlannedItem<PromptSource>[] | Readonly<Record<string, unknown>>;
  /**
   * The module's own tools by name -> qualified name, checked here: build serves them without checking again (a
   * remote's tools are checked when served).
   */
  readonly qualifiedNames: ReadonlyMap<string, string>;
  readonly timeoutMs: number | undefined;
  readonly serve: ServeMode;
  readonly options: BootstrapOptions;
}

/** The options of `bootstrap(Module, options)`, declared once; the rules that join two options follow in `checkBootstrapOptions`. */
const BOOTSTRAP_OPTIONS = {
  container: opt.any<BootstrapOptions["container"]>(),
  ctx: opt.any<BootstrapOptions["ctx"]>(),
  transport: opt.optional(opt.oneOf(["http", "stdio"] as const)),
  port: opt.optional(opt.port()),
  timeoutMs: opt.timeoutMs(),
  serve: opt.boolean(),
  stdin: opt.any<BootstrapOptions["stdin"]>(),
  stdout: opt.any<BootstrapOptions["stdout"]>(),
  asker: opt.any<BootstrapOptions["asker"]>(),
  tasks: (v: unknown, where: string) => checkTasksOption(v, where),
} as const;

function checkBootstrapOptions(name: string, options: BootstrapOptions): void {
  const where = `bootstrap(${name})`;
  const fail = (option: string, why: string): never => {
    throw new OptionsError(where, option, `${where}: ${why}`);
  };
  const { transport, serve, ctx, container, port, asker, stdin, stdout } = checkOptions(options, where, BOOTSTRAP_OPTIONS);
  if (serve === false && transport === "stdio")
    fail("serve", `transport: "stdio" serves the module on this process's stdin/stdout; it cannot be combined with serve: false`);
  if (ctx !== undefined && !(ctx instanceof RunContext)) fail("ctx", "'ctx' must be a RunContext");
  if (container !== undefined && (!container || typeof container.createChildContainer !== "function"))
    fail("container", "'container' must be a tsyringe DependencyContainer");
  if (port !== undefined && transport === "stdio") fail("port", `'port' is for the loopback listener; transport: "stdio" has none`);
  if (asker !== undefined && typeof asker?.ask !== "function") fail("asker", "'asker' must be an Asker (an object with ask(request))");
  if (transport !== "stdio" && (stdin !== undefined || stdout !== undefined))
    fail(stdin !== undefined ? "stdin" : "stdout", `'stdin' and 'stdout' apply to transport: "stdio" only`);
}

/**
 * The composed module's tool names, by `serveRegistry`'s rules, before a
 * remote is opened or a port bound (the server name was checked once, when
 * `@McpServer` was applied: a composed module serves under its root's name).
 */
function checkNames(name: string, meta: Readonly<McpServerOptions>): ReadonlyMap<string, string> {
  const fail = (why: string, err?: unknown): never => {
    throw new BootstrapError(name, "names", why, { cause: err });
  };
  const seen = new Map<string, string>();
  const qualified = new Map<string, string>();
  for (const t of meta.tools) {
    const original = typeof t === "function" ? getToolMetadata(t)!.name : t.name;
    const wire = sanitiseToolName(original);
    const prev = seen.get(wire);
    if (prev !== undefined)
      fail(`tools '${prev}' and '${original}' are both served as '${wire}'; rename one (@Tool({ name }) or tool({ name }))`);
    seen.set(wire, original);
    try {
      qualified.set(original, checkQualifiedName(meta.name, wire, original));
    } catch (err) {
      fail((err as Error).message, err);
    }
  }
  return qualified;
}

/** The tokens bootstrap registers itself: `true` for the per-call context. */
function fixedTokens(meta: Readonly<McpServerOptions>): Map<unknown, boolean> {
  const fixed = new Map<unknown, boolean>([
    [RunContext, true],
    [TOKENS.RunContext, true],
    [ToolRegistry, false],
    [TOKENS.ToolRegistry, false],
    [LOGGER, false],
  ]);
  for (const r of meta.remotes ?? [])
    for (const token of [mcpClientToken, mcpToolsToken, mcpResourcesToken, mcpPromptsToken, mcpSkillsToken])
      fixed.set(token(r.alias), false);
  return fixed;
}

function scanProviders(meta: Readonly<McpServerOptions>, scanner: ScopeScanner): PlannedProvider[] {
  return (meta.providers ?? []).map((provider) => {
    const cls = providerClass(provider);
    return { provider, perCall: cls ? scanner.scope(cls, `provider ${tokenName(providerToken(provider))}`, "providers") : null };
  });
}

function scanTools(meta: Readonly<McpServerOptions>, scanner: ScopeScanner): PlannedTool[] {
  return meta.tools.map((tool) => ({
    tool,
    perCall: typeof tool === "function" ? scanner.scope(tool, `@Tool class ${tool.name}`, "tools") : null,
  }));
}

function scanServed(meta: Readonly<McpServerOptions>, scanner: ScopeScanner): Pick<ModulePlan, "resources" | "prompts"> {
  const plan = <T>(item: T, kind: string, step: string): PlannedItem<T> => ({
    item,
    perCall: typeof item === "function" ? scanner.scope(item as never, `${kind} class ${(item as { name: string }).name}`, step) : null,
  });
  const resources = (meta.resources ?? []).map((r) => plan(r, "@Resource", "resources"));
  const p = meta.prompts;
  const prompts = Array.isArray(p)
    ? (p as readonly PromptSource[]).map((x) => plan(x, "@Prompt", "prompts"))
    : ((p ?? []) as Readonly<Record<string, unknown>>);
  return { resources, prompts };
}

function scanApprovals(
  name: string,
  meta: Readonly<McpServerOptions>,
  providers: ReadonlyMap<unknown, Provider>,
  parent: DependencyContainer,
  scanner: ScopeScanner,
): void {
  const token = meta.approvals as InjectionToken<Asker> | undefined;
  if (token === undefined) return;
  const known = providers.has(token) || parent.isRegistered(token, true) || typeof token === "function";
  if (!known)
    throw new BootstrapError(
      name,
      "approvals",
      `'approvals' names ${tokenName(token)}, which the container cannot resolve to an Asker — add it to providers`,
    );
  const p = providers.get(token);
  const cls = p !== undefined ? providerClass(p) : typeof token === "function" && !parent.isRegistered(token, true) ? token : undefined;
  const path = cls ? scanner.scope(cls as never, `the 'approvals' Asker ${tokenName(token)}`, "approvals") : null;
  if (path) {
    throw new BootstrapError(
      name,
      "approvals",
      `'approvals' names ${tokenName(token)}, which depends on the per-call RunContext (${path.join(" -> ")}); the ` +
        `Asker is built once for the app and would hold one call's context. Take what you need from ask(request) ` +
        `instead, or inject the app's context as a value ({ provide: Token, useValue: ctx }).`,
    );
  }
}

function serveMode(options: BootstrapOptions, meta: Readonly<McpServerOptions>, name: string): ServeMode {
  if (options.serve === false) return "none";
  if (options.transport === "stdio") return "stdio";
  if ((options.transport ?? meta.transport) !== "stdio") return "listener";
  if (!meta.command) {
    throw new BootstrapError(
      name,
      "serve",
      `the module declares transport: "stdio" without 'command': name the command a CLI spawns (command: ` +
        `stdioCommand("./dist/mcp-server.js")), or serve this process on stdio with bootstrap(${name}, { transport: ` +
        `"stdio" })`,
    );
  }
  return "command";
}

/**
 * Read and check `module` (its imports folded in) and `options`. Throws `BootstrapError` (step
 * `module`, `imports`, `options`, `names`, `providers`, `tools`, `approvals` or `serve`)
 * naming what is wrong and the fix; builds, opens and binds nothing.
 */
export function scanModule(module: ModuleClass, options: BootstrapOptions): ModulePlan {
  const name = (module as { name?: string } | undefined)?.name || String(module);
  if (!getMcpServerMetadata(module))
    throw new BootstrapError(name, "module", `${name} is not decorated with @McpServer({ name, tools, ... })`);
  const meta = composeModule(module, (why) => {
    throw new BootstrapError(name, "imports", why);
  });
  checkBootstrapOptions(name, options);
  const qualifiedNames = checkNames(name, meta);
  const parent = options.container ?? rootContainer;
  const providers = new Map((meta.providers ?? []).map((p) => [providerToken(p), p] as const));
  const scanner = new ScopeScanner(fixedTokens(meta), providers, parent, (step, what, why) => {
    throw new BootstrapError(name, step, `cannot build ${what}: ${why}`);
  });
  const planned = scanProviders(meta, scanner);
  const tools = scanTools(meta, scanner);
  const served = scanServed(meta, scanner);
  scanApprovals(name, meta, providers, parent, scanner);
  const serve = serveMode(options, meta, name);
  const ctx = options.ctx ?? new RunContext();
  return {
    module,
    name,
    meta,
    parent,
    ctx,
    providers: planned,
    tools,
    ...served,
    qualifiedNames,
    timeoutMs: options.timeoutMs ?? meta.timeoutMs,
    serve,
    options,
  };
}
