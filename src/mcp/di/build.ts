/**
 * @module mcp/di/build
 * bootstrap's second step, like Nest's injector: follow a checked plan — the
 * module's container and providers, the remote MCP connections, the tool
 * registry, the approval guard and how the registry is served. Any failure
 * closes what was opened and throws `BootstrapError`.
 */
import { instanceCachingFactory, Lifecycle, type DependencyContainer, type InjectionToken } from "tsyringe";
import { LOGGER, TOKENS } from "../../keys.js";
import { GLOBAL_LOGGER, type Logger, ignoreRejection } from "../../util/logger.js";
import { RunContext } from "../../context/run-context.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { callScope, classTool } from "../../tools/tool-class.js";
import type { Asker } from "../../contracts/elicitation.js";
import { errorLine } from "../../util/format.js";
import { MCPClient, mcpPrompts, mcpResources, mcpSkills, mcpTools } from "../client/index.js";
import type { McpServerSpec } from "../serve/index.js";
import { serveCatalog, servePlan } from "../serve/serve-registry.js";
import { openStdioCatalog, type StdioServing } from "../serve/serve-stdio.js";
import { buildCatalog, type ServedCatalog } from "../serve/served-catalog.js";
import { DEFAULT_HEARTBEAT_MS } from "../serve/heartbeat.js";
import type { ApprovalGuard, ApprovalServer } from "../approvals/index.js";
import { guardFromPolicy } from "../approvals/approval-guard.js";
import { approvalPolicy, approvalServerFromPolicy } from "../approvals/approval-server.js";
import type { RemoteDeclaration } from "./remote.js";
import type { McpSkill } from "../client/mcp-skills.js";
import { mcpClientToken, mcpPromptsToken, mcpResourcesToken, mcpSkillsToken, mcpToolsToken } from "./remote.js";
import { BootstrapError } from "./bootstrap.error.js";
import { tokenName } from "./request-scope.js";
import type { ModulePlan } from "./scan.js";
import { isResourceClass, type ResourceClass } from "../../tools/resource.decorator.js";
import { isPromptClass, type PromptClass } from "../../tools/prompt.decorator.js";
import type { ServablePrompt, ServableResource } from "../../tools/served-items.js";
import type { PromptTemplate } from "../../prompts/prompt-template.js";
import {
  promptFromClass,
  resourceFromClass,
  servedExtras,
  type PromptsOption,
  type ResourceSource,
  type ServedExtras,
} from "../serve/served-extras.js";
import { loadSkillsOption, type ServedSkills } from "../serve/served-skills.js";
import { moduleBudget } from "../serve/served-results.js";

/** The module's resources, prompts and skills, with decorated classes built by its container. */
export interface ServedItems {
  readonly resources: readonly ResourceSource[];
  readonly prompts: PromptsOption | undefined;
  /** The module's folder of skills, read and checked (`@McpServer({ skills })`), or `undefined`. */
  readonly skills: ServedSkills | undefined;
  /** The same, checked and indexed once (URIs and names unique): what is served. */
  readonly extras: ServedExtras;
}

/** What the build step made; `McpApp` wraps it. */
export interface BuiltModule {
  readonly container: DependencyContainer;
  readonly registry: ToolRegistry;
  readonly spec: McpServerSpec | null;
  readonly approvals: ApprovalServer | null;
  readonly guard: ApprovalGuard | null;
  readonly stdio: StdioServing | null;
  readonly remotes: ReadonlyMap<string, MCPClient>;
  /** In start order; `McpApp.stop()` runs them in reverse. */
  readonly closers: Array<() => Promise<void>>;
}

type Served = Pick<BuiltModule, "spec" | "approvals" | "guard" | "stdio">;

/**
 * Register the plan's providers in `c`. A class provider is a module
 * singleton — unless the plan found it depends on the per-call context: then
 * it is container-scoped, so each call's child container builds its own with
 * that call's context (and the module container one with the app's).
 */
function registerProviders(c: DependencyContainer, plan: ModulePlan): void {
  for (const { provider: p, perCall } of plan.providers) {
    try {
      if (typeof p === "function") {
        if (perCall) c.register(p as InjectionToken, { useClass: p as never }, { lifecycle: Lifecycle.ContainerScoped });
        else c.registerSingleton(p as never);
      } else if ("useClass" in p) c.register(p.provide, { useClass: p.useClass as never });
      else if ("useValue" in p) c.register(p.provide, { useValue: p.useValue });
      else c.register(p.provide, { useFactory: p.useFactory });
    } catch (err) {
      throw new BootstrapError(
        plan.name,
        "providers",
        `provider ${tokenName(typeof p === "function" ? p : p.provide)} could not be registered: ${errorLine(err)}`,
        { cause: err },
      );
    }
  }
  c.register(RunContext, { useValue: plan.ctx });
  c.register(TOKENS.RunContext, { useValue: plan.ctx });
  // The module's logger: a provider's or the parent container's, else the global one (setLogger).
  if (!c.isRegistered(LOGGER, true)) c.register(LOGGER, { useValue: GLOBAL_LOGGER });
}

/**
 * The remote's static prompts, rendered now; the warnings about the prompts
 * it dropped wait until something resolves them (a consumer that injects
 * them), and then go to the module's logger once. Nothing injects them: no
 * warning (issue: three "dropping" lines on every bootstrap with a remote).
 */
async function deferredPrompts(c: DependencyContainer, client: MCPClient): Promise<() => Record<string, PromptTemplate>> {
  const logger = c.resolve<Logger>(LOGGER);
  const held: string[] = [];
  const prompts = await mcpPrompts(client, {
    logger: { debug: (m) => logger.debug(m), info: (m) => logger.info(m), error: (m) => logger.error(m), warn: (m) => held.push(m) },
  });
  return () => {
    for (const m of held.splice(0)) logger.warn(m);
    return prompts;
  };
}

/** The remote's skills, read now (a remote that serves none: `{}`); a failure is the step `remote`, naming the alias. */
async function remoteSkills(
  c: DependencyContainer,
  plan: ModulePlan,
  r: RemoteDeclaration,
  client: MCPClient,
): Promise<Record<string, McpSkill>> {
  try {
    return await mcpSkills(client, { logger: c.resolve<Logger>(LOGGER) });
  } catch (err) {
    throw new BootstrapError(plan.name, "remote", `the skills of remote '${r.alias}' could not be read: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function describeServer(s: object): string {
  const o = s as { command?: string; args?: readonly string[]; url?: string };
  if (typeof o.command === "string") return `stdio: ${[o.command, ...(o.args ?? [])].join(" ")}`;
  return `http: ${o.url}`;
}

async function openRemote(
  c: DependencyContainer,
  plan: ModulePlan,
  r: RemoteDeclaration,
  owners: Map<string, string>,
  closers: BuiltModule["closers"],
): Promise<MCPClient> {
  let client: MCPClient;
  try {
    client = await MCPClient.start(r.server);
  } catch (err) {
    throw new BootstrapError(
      plan.name,
      "remote",
      `remote '${r.alias}' (${describeServer(r.server)}) could not be opened: ${(err as Error).message}`,
      { cause: err },
    );
  }
  closers.push(() => client.stop());
  const tools = await mcpTools(client, { prefix: r.prefix, trustReadOnlyHint: r.trustReadOnlyHint });
  for (const t of tools) {
    const prev = owners.get(t.name);
    if (prev) {
      throw new BootstrapError(
        plan.name,
        "remote",
        `remotes '${prev}' and '${r.alias}' both provide a tool named '${t.name}'; give one of them a prefix: ` +
          `remote('${r.alias}', server, { prefix: '${r.alias}_' })`,
      );
    }
    owners.set(t.name, r.alias);
  }
  c.register(mcpClientToken(r.alias), { useValue: client });
  c.register(mcpToolsToken(r.alias), { useValue: tools });
  c.register(mcpResourcesToken(r.alias), { useValue: mcpResources(client, { name: r.alias }) });
  c.register(mcpPromptsToken(r.alias), { useFactory: instanceCachingFactory(await deferredPrompts(c, client)) });
  c.register(mcpSkillsToken(r.alias), { useValue: await remoteSkills(c, plan, r, client) });
  return client;
}

/**
 * How a decorated class's instance is got: once from the module container,
 * or (it depends on the per-call context) per request in a child container
 * holding that request's context.
 */
function instanceOf<T>(c: DependencyContainer, cls: new (...args: never[]) => T, perCall: boolean): (ctx: RunContext) => T {
  if (!perCall) {
    let made: T | undefined;
    return () => (made ??= c.resolve(cls as never) as T);
  }
  return (ctx) => callScope(c, ctx).resolve(cls as never) as T;
}

/**
 * The plan's resources, prompts and skills as served items, checked now (names, URIs, the skills folder) so a clash
 * fails before a remote opens.
 */
async function buildServedItems(c: DependencyContainer, plan: ModulePlan): Promise<ServedItems> {
  const resources = plan.resources.map(({ item, perCall }): ResourceSource =>
    isResourceClass(item)
      ? resourceFromClass(item, instanceOf(c, item as ResourceClass as never, perCall !== null))
      : (item as ServableResource),
  );
  const prompts: PromptsOption | undefined = Array.isArray(plan.prompts)
    ? plan.prompts.map(({ item, perCall }) =>
        isPromptClass(item)
          ? promptFromClass(item, instanceOf(c, item as PromptClass as never, perCall !== null))
          : (item as ServablePrompt),
      )
    : (plan.prompts as PromptsOption);
  let skills: ServedSkills | undefined;
  try {
    skills = await loadSkillsOption(plan.meta.skills, `@McpServer on ${plan.name}`);
  } catch (err) {
    throw new BootstrapError(plan.name, "skills", (err as Error).message, { cause: err });
  }
  try {
    return { resources, prompts, skills, extras: servedExtras({ resources, prompts, skills }) };
  } catch (err) {
    throw new BootstrapError(plan.name, "names", (err as Error).message, { cause: err });
  }
}

function buildRegistry(c: DependencyContainer, plan: ModulePlan): ToolRegistry {
  const registry = new ToolRegistry();
  c.register(ToolRegistry, { useValue: registry });
  c.register(TOKENS.ToolRegistry, { useValue: registry });
  for (const { tool, perCall } of plan.tools) {
    const what = typeof tool === "function" ? `@Tool class ${tool.name}` : `tool '${tool.name}'`;
    try {
      registry.register(typeof tool === "function" ? classTool(c, tool, perCall !== null) : tool);
    } catch (err) {
      throw new BootstrapError(plan.name, "tools", `cannot build ${what}: ${(err as Error).message}`, { cause: err });
    }
  }
  return registry;
}

function resolveAsker(c: DependencyContainer, plan: ModulePlan): Asker | undefined {
  // The person bootstrap was handed (agentkit serve --approve) answers, whether or not the module names an Asker of its own.
  if (plan.options.asker !== undefined) return plan.options.asker;
  const token = plan.meta.approvals;
  if (token === undefined) return undefined;
  let asker: Asker;
  try {
    asker = c.resolve(token);
  } catch (err) {
    throw new BootstrapError(
      plan.name,
      "approvals",
      `'approvals' names ${tokenName(token)}, which the container cannot resolve to an Asker — add it to providers`,
      { cause: err },
    );
  }
  if (!asker || typeof asker.ask !== "function")
    throw new BootstrapError(plan.name, "approvals", `'approvals' resolved to something without ask(request): ${tokenName(token)}`);
  return asker;
}

/**
 * Whether the module's `requiresApproval` tools ask first: `guard: "asker"`,
 * or a person handed to bootstrap (`options.asker`) and no `guard: "none"`
 * written in the module.
 */
function guarded(plan: ModulePlan): boolean {
  return plan.meta.guard === "asker" || (plan.options.asker !== undefined && plan.meta.guard !== "none");
}

/**
 * The module's server-side guard. With an `ApprovalServer` beside it (over
 * HTTP), the Claude CLI's permission prompt asks first, and the guard takes
 * that answer for the same tool-use id (`answeredBy`): a person is asked once.
 */
function guardFor(plan: ModulePlan, asker: Asker | undefined, approvals: { approvals: ApprovalServer | null }): ApprovalGuard | null {
  if (!asker || !guarded(plan)) return null;
  const { timeoutMs, ctx } = plan;
  const answeredBy = {
    get decisions() {
      return approvals.approvals?.decisions ?? [];
    },
  };
  return guardFromPolicy({ asker, ctx, answeredBy, timeoutMs, auditPath: plan.meta.auditPath });
}

/**
 * The registry's catalog: the module's tools under the qualified names scan
 * checked; a remote's tools (known only now) are checked here, and a name
 * refused is the step `names`, as at scan.
 */
function catalogOf(plan: ModulePlan, registry: ToolRegistry): ServedCatalog {
  try {
    return buildCatalog(registry, plan.meta.name, plan.qualifiedNames, moduleBudget(plan.meta.results));
  } catch (err) {
    throw new BootstrapError(plan.name, "names", (err as Error).message, { cause: err });
  }
}

/** Serve on this process's stdin/stdout: the guard (and its audit file) as over HTTP; no `ApprovalServer`. */
async function serveStdio(
  plan: ModulePlan,
  registry: ToolRegistry,
  items: ServedItems,
  guard: ApprovalGuard | null,
  closers: BuiltModule["closers"],
): Promise<Served> {
  const { timeoutMs, ctx, options } = plan;
  const catalog = catalogOf(plan, registry);
  const checked = {
    name: plan.meta.name,
    ctx,
    timeoutMs,
    heartbeatMs: DEFAULT_HEARTBEAT_MS,
    guard: guard ?? undefined,
    resources: items.resources,
    prompts: items.prompts,
    stdin: options.stdin,
    stdout: options.stdout,
    tasks: options.tasks ?? plan.meta.tasks,
    results: plan.meta.results,
    skills: undefined,
  };
  let stdio: StdioServing;
  try {
    stdio = await openStdioCatalog(catalog, items.extras, checked);
  } catch (err) {
    throw new BootstrapError(plan.name, "serve", `the '${plan.meta.name}' server could not start on stdio: ${(err as Error).message}`, {
      cause: err,
    });
  }
  closers.push(() => stdio.close());
  return { spec: null, approvals: null, guard, stdio };
}

/** The port option for the listener: bootstrap's `port`, else the module's, else none (ephemeral). */
function listenerPort(plan: ModulePlan): { port?: number } {
  const port = plan.options.port ?? plan.meta.port;
  return port !== undefined ? { port } : {};
}

async function serveListener(
  plan: ModulePlan,
  registry: ToolRegistry,
  items: ServedItems,
  guard: ApprovalGuard | null,
  closers: BuiltModule["closers"],
): Promise<McpServerSpec> {
  const { meta, timeoutMs, ctx } = plan;
  // "command": the CLI spawns meta.command (the stdio child); the registry is not run here.
  const how =
    plan.serve === "command"
      ? { transport: "stdio" as const, command: meta.command, env: meta.env && { ...meta.env } }
      : { auth: meta.auth ?? "token", ...listenerPort(plan), guard: guard ?? undefined };
  const catalog = catalogOf(plan, registry);
  try {
    const spec = await serveCatalog(
      catalog,
      items.extras,
      servePlan(meta.name, ctx, {
        resources: items.resources,
        prompts: items.prompts,
        timeoutMs,
        tasks: plan.options.tasks ?? meta.tasks,
        results: meta.results,
        ...how,
      }),
    );
    closers.push(() => spec.stop());
    await spec.start();
    return spec;
  } catch (err) {
    throw new BootstrapError(plan.name, "serve", `the '${meta.name}' server could not start: ${(err as Error).message}`, { cause: err });
  }
}

async function startApprovals(
  plan: ModulePlan,
  asker: Asker,
  spec: McpServerSpec,
  closers: BuiltModule["closers"],
): Promise<ApprovalServer> {
  const { meta, timeoutMs, ctx } = plan;
  // servers: a prompt about one of the module's tools with arguments its schema refuses is denied unasked.
  const a = approvalServerFromPolicy(
    approvalPolicy(asker, { timeoutMs, autoAllow: new Set(meta.autoAllow), ctx, servers: [spec], auditPath: meta.auditPath }),
  );
  closers.push(() => a.stop());
  try {
    await a.start();
  } catch (err) {
    throw new BootstrapError(plan.name, "approvals", `the approval server could not start: ${(err as Error).message}`, { cause: err });
  }
  return a;
}

async function serveModule(
  plan: ModulePlan,
  registry: ToolRegistry,
  items: ServedItems,
  asker: Asker | undefined,
  closers: BuiltModule["closers"],
): Promise<Served> {
  if (plan.serve === "none") return { spec: null, approvals: null, guard: null, stdio: null };
  const beside: { approvals: ApprovalServer | null } = { approvals: null };
  const guard = guardFor(plan, asker, beside);
  if (plan.serve === "stdio") return serveStdio(plan, registry, items, guard, closers);
  const spec = await serveListener(plan, registry, items, guard, closers);
  beside.approvals = asker ? await startApprovals(plan, asker, spec, closers) : null;
  return { spec, approvals: beside.approvals, guard, stdio: null };
}

/** A module built but not served: what a host serves itself (`arc-agentkit/express`). */
export interface UnservedModule {
  readonly container: DependencyContainer;
  readonly registry: ToolRegistry;
  /** The module's resources and prompts, as `serveRegistry` takes them. */
  readonly items: ServedItems;
  /** The server-side approval guard (`guard: "asker"` with `approvals`), or `null`. */
  readonly guard: ApprovalGuard | null;
  readonly remotes: ReadonlyMap<string, MCPClient>;
  /** In start order; run them in reverse to stop. */
  readonly closers: Array<() => Promise<void>>;
}

/** The container, providers, remotes and registry of `plan`; on failure what was opened is closed and the error rethrown. */
async function buildParts<T>(
  plan: ModulePlan,
  then: (parts: Omit<UnservedModule, "guard">, asker: Asker | undefined) => Promise<T>,
): Promise<T> {
  const c = plan.parent.createChildContainer();
  const closers: BuiltModule["closers"] = [];
  const remotes = new Map<string, MCPClient>();
  try {
    registerProviders(c, plan);
    const items = await buildServedItems(c, plan);
    const owners = new Map<string, string>();
    for (const r of plan.meta.remotes ?? []) remotes.set(r.alias, await openRemote(c, plan, r, owners, closers));
    const registry = buildRegistry(c, plan);
    return await then({ container: c, registry, items, remotes, closers }, resolveAsker(c, plan));
  } catch (err) {
    for (const close of [...closers].reverse())
      await close().catch(ignoreRejection("closing what bootstrap opened, after a failed bootstrap; the bootstrap error is thrown"));
    c.clearInstances();
    throw err;
  }
}

/** Build what `plan` describes. On failure everything opened is closed again before `BootstrapError` is thrown. */
export function buildModule(plan: ModulePlan): Promise<BuiltModule> {
  return buildParts(plan, async ({ container, registry, items, remotes, closers }, asker) => {
    const served = await serveModule(plan, registry, items, asker, closers);
    return { container, registry, remotes, closers, ...served };
  });
}

/**
 * Build `plan` without serving it: container, providers, remotes, registry,
 * resources and prompts, and the server-side guard (no listener, no
 * `ApprovalServer`: the host serves, and the guard asks the module's Asker).
 */
export function buildUnservedModule(plan: ModulePlan): Promise<UnservedModule> {
  return buildParts(plan, async (parts, asker) => ({ ...parts, guard: guardFor(plan, asker, { approvals: null }) }));
}
