/**
 * @module mcp/di/mcp-server-options
 * The options of `@McpServer` and their declarative checks, run when the
 * decorator is applied: each bad option throws `DefinitionError` naming the
 * class and the key. Facts that need more than one module (imports, names of
 * composed tools, request scope) are bootstrap's scan.
 */
import type { InjectionToken } from "tsyringe";
import { isPort, isTimeoutMs, unknownKey, unknownOptionMessage } from "../../options/option-checks.js";
import { describeValue } from "../../util/format.js";
import { DefinitionError } from "../../errors/tool-definition.error.js";
import { isToolClass, type ToolClass } from "../../tools/tool.decorator.js";
import { checkServerName } from "../../wire/names.js";
import type { Tool } from "../../tools/tool.js";
import type { Asker } from "../../contracts/elicitation.js";
import type { RemoteDeclaration } from "./remote.js";
import { isResourceClass } from "../../tools/resource.decorator.js";
import { isPromptClass } from "../../tools/prompt.decorator.js";
import type { PromptsOption, ResourceSource } from "../serve/served-extras.js";

/** A provider: a class (a singleton of the module), or a token bound to a class, a value or a factory. */
export type Provider =
  | (new (...args: never[]) => unknown)
  | { readonly provide: InjectionToken; readonly useClass: new (...args: never[]) => unknown }
  | { readonly provide: InjectionToken; readonly useValue: unknown }
  | { readonly provide: InjectionToken; readonly useFactory: (c: import("tsyringe").DependencyContainer) => unknown };

/**
 * An entry of `imports`: an `@McpServer` module class, or a function
 * returning one (`() => OtherModule`) when the two files import each other
 * and the class is not defined yet when the decorator runs.
 */
export type ModuleImport = (abstract new (...args: never[]) => unknown) | (() => abstract new (...args: never[]) => unknown);

/** Options of `@McpServer`. */
export interface McpServerOptions {
  /** The served MCP server's name (`mcp__<name>__<tool>`): `serveRegistry`'s rule (`[A-Za-z0-9_-]+`, no `__`), refused rather than rewritten. */
  readonly name: string;
  /** `@Tool` classes (built by the module's container) and `Tool` objects to serve. */
  readonly tools: ReadonlyArray<ToolClass<never> | Tool>;
  /** `@Resource` classes (built by the module's container, per request when they depend on its context) and resource objects to serve. */
  readonly resources?: readonly ResourceSource[];
  /** `@Prompt` classes, prompt objects, core `Prompt`s, or a record of name -> text or `Prompt`, to serve. */
  readonly prompts?: PromptsOption;
  /** Services the tools, agents and Asker depend on; classes become module singletons. */
  readonly providers?: readonly Provider[];
  /**
   * Other `@McpServer` modules whose providers, tools, resources, prompts and
   * remotes join this one's, as Nest's `imports` do (their own serving
   * options — name, transport, approvals — are not used: this module serves
   * them all). A module imported along two paths counts once; a cycle, or one
   * token (or remote alias) defined differently by two modules, is refused by
   * `bootstrap` naming them. Prompts must be arrays in composed modules.
   */
  readonly imports?: readonly ModuleImport[];
  /** Remote MCP servers whose tools, resources and prompts are injected by alias. */
  readonly remotes?: readonly RemoteDeclaration[];
  /** `"http"` (default: tools stay in this process) or `"stdio"` (a CLI spawns `command`). */
  readonly transport?: "http" | "stdio";
  /** For `"stdio"`: the command the CLI runs (see `stdioCommand`). */
  readonly command?: readonly string[];
  /** For `"stdio"`: environment for that command. */
  readonly env?: Readonly<Record<string, string>>;
  /** Per-call deadline of served tools and of approval prompts. Default: none (forever). */
  readonly timeoutMs?: number;
  /** The token (or class) of an `Asker` provider: boots an `ApprovalServer` beside the listener. */
  readonly approvals?: InjectionToken<Asker>;
  /** Tools the `ApprovalServer` allows without asking (by CLI tool name, e.g. `"Read"`). */
  readonly autoAllow?: readonly string[];
  /** `"asker"`: calls to `requiresApproval` tools ask the `approvals` Asker server-side first. Default `"none"`. */
  readonly guard?: "asker" | "none";
  /** A JSONL audit file shared by the guard and the `ApprovalServer`: one fsync'd line per decision, written before the answer. */
  readonly auditPath?: string;
  /** `"token"` (default) or `"none"`, asked for by name. */
  readonly auth?: "token" | "none";
  /** A fixed port for the listener; default ephemeral. */
  readonly port?: number;
}

const KNOWN = new Set(["name", "imports", "tools", "resources", "prompts", "providers", "remotes", "transport", "command", "env", "timeoutMs", "approvals", "autoAllow", "guard", "auditPath", "auth", "port"]);

function fail(cls: string, key: string, why: string): never {
  throw new DefinitionError(cls, key, `@McpServer on ${cls}: ${why}`);
}

/** The name rule is `serveRegistry`'s own (`checkServerName`), so a module that decorates is a module that serves. */
function checkName(cls: string, name: unknown): void {
  try {
    checkServerName(name);
  } catch (err) {
    fail(cls, "name", `'name' must match the MCP server-name rule: ${(err as Error).message}`);
  }
}

function describeImports(imports: unknown): string {
  if (!Array.isArray(imports)) return typeof imports;
  const i = imports.findIndex((m) => typeof m !== "function");
  return `imports[${i}]: ${imports[i] === undefined ? "undefined (two files importing each other? write it as () => Module)" : typeof imports[i]}`;
}

/** `resources` and `prompts`: arrays of decorated classes or objects of the served shapes (a record of prompts too). */
function checkServedItems(cls: string, options: McpServerOptions): void {
  if (options.resources !== undefined && !Array.isArray(options.resources)) fail(cls, "resources", "'resources' must be an array of @Resource classes or resource objects");
  (options.resources ?? []).forEach((r, i) => {
    const ok = typeof r === "function" ? isResourceClass(r) : !!r && typeof (r as { read?: unknown }).read === "function";
    if (!ok) fail(cls, "resources", `resources[${i}] (${typeof r === "function" ? r.name : typeof r}) is neither a @Resource class nor a resource object { uri | uriTemplate, name, read }`);
  });
  const p = options.prompts;
  if (p === undefined) return;
  if (!p || typeof p !== "object") fail(cls, "prompts", "'prompts' must be an array of prompts or a record of name -> text or Prompt");
  if (Array.isArray(p)) {
    p.forEach((x: unknown, i: number) => {
      const ok = typeof x === "function" ? isPromptClass(x) : !!x && typeof (x as { render?: unknown }).render === "function";
      if (!ok) fail(cls, "prompts", `prompts[${i}] (${typeof x === "function" ? (x as { name: string }).name : typeof x}) is neither a @Prompt class, a Prompt, nor a prompt object { name, render }`);
    });
  }
}

/** `tools`, `providers`, `imports` and `remotes`: what the module is made of. */
function checkParts(cls: string, options: McpServerOptions): void {
  if (!Array.isArray(options.tools)) fail(cls, "tools", "'tools' must be an array of @Tool classes or Tool objects");
  options.tools.forEach((t, i) => {
    if (typeof t === "function" ? !isToolClass(t) : !t || typeof (t as Tool).run !== "function" || typeof (t as Tool).name !== "string") {
      fail(cls, "tools", `tools[${i}] (${typeof t === "function" ? t.name : typeof t}) is neither a @Tool class nor a Tool object`);
    }
  });
  checkServedItems(cls, options);
  if (options.providers !== undefined && !Array.isArray(options.providers)) fail(cls, "providers", "'providers' must be an array");
  (options.providers ?? []).forEach((p, i) => {
    const ok = typeof p === "function" || (p && typeof p === "object" && "provide" in p && ("useClass" in p || "useValue" in p || "useFactory" in p));
    if (!ok) fail(cls, "providers", `providers[${i}] must be a class or { provide, useClass | useValue | useFactory }`);
  });
  if (options.imports !== undefined && (!Array.isArray(options.imports) || options.imports.some((m) => typeof m !== "function"))) {
    fail(cls, "imports", `'imports' must be an array of @McpServer module classes (or () => Module for a module defined later), got ${describeImports(options.imports)}`);
  }
  if (options.remotes !== undefined && !Array.isArray(options.remotes)) fail(cls, "remotes", "'remotes' must be an array of remote(alias, server, { prefix })");
  const aliases = new Set<string>();
  for (const r of options.remotes ?? []) {
    if (!r || typeof r.alias !== "string") fail(cls, "remotes", "each remote must be made with remote(alias, server, { prefix })");
    if (aliases.has(r.alias)) fail(cls, "remotes", `alias '${r.alias}' is declared twice`);
    aliases.add(r.alias);
  }
}

/** How the module is served: transport, deadline, guard, audit, auth, autoAllow. */
function checkServing(cls: string, options: McpServerOptions): void {
  if (options.transport !== undefined && options.transport !== "http" && options.transport !== "stdio") fail(cls, "transport", `'transport' must be "http" or "stdio", got ${JSON.stringify(options.transport)}`);
  if (options.timeoutMs !== undefined && !isTimeoutMs(options.timeoutMs)) fail(cls, "timeoutMs", `'timeoutMs' must be a positive number of milliseconds, got ${JSON.stringify(options.timeoutMs)}`);
  if (options.guard !== undefined && options.guard !== "asker" && options.guard !== "none") fail(cls, "guard", `'guard' must be "asker" or "none", got ${JSON.stringify(options.guard)}`);
  if (options.guard === "asker" && options.approvals === undefined) fail(cls, "guard", `guard: "asker" needs 'approvals' to name an Asker provider`);
  if (options.auditPath !== undefined && (typeof options.auditPath !== "string" || options.auditPath === "")) fail(cls, "auditPath", "'auditPath' must be a file path");
  if (options.auditPath !== undefined && options.approvals === undefined) fail(cls, "auditPath", "'auditPath' records approval decisions; it needs 'approvals' to name an Asker provider");
  if (options.auth !== undefined && options.auth !== "token" && options.auth !== "none") fail(cls, "auth", `'auth' must be "token" or "none"`);
  if (options.autoAllow !== undefined && (!Array.isArray(options.autoAllow) || options.autoAllow.some((a) => typeof a !== "string" || a === ""))) fail(cls, "autoAllow", `'autoAllow' must be an array of tool names, got ${describeValue(options.autoAllow)}`);
  if (options.port !== undefined && !isPort(options.port)) fail(cls, "port", `'port' must be an integer 0-65535 (0 = ephemeral), got ${describeValue(options.port)}`);
  const c = options.command;
  if (c !== undefined && (!Array.isArray(c) || c.length === 0 || c.some((x) => typeof x !== "string") || !c[0])) fail(cls, "command", `'command' must be a non-empty array of strings, program first (e.g. stdioCommand("./dist/mcp-server.js")), got ${describeValue(c)}`);
  const env = options.env as unknown;
  if (env !== undefined && (!env || typeof env !== "object" || Array.isArray(env) || Object.values(env).some((v) => typeof v !== "string"))) fail(cls, "env", `'env' must map variable names to strings, got ${describeValue(env)}`);
}

/**
 * Check `@McpServer` options on the class named `cls`, as the decorator is
 * applied. @throws DefinitionError naming the class, the key and what is accepted.
 */
export function checkMcpServerOptions(cls: string, options: McpServerOptions): void {
  if (!options || typeof options !== "object") fail(cls, "options", "options are required ({ name, tools, ... })");
  const unknown = unknownKey(options, KNOWN);
  if (unknown !== undefined) throw new DefinitionError(cls, unknown, unknownOptionMessage(`@McpServer on ${cls}`, unknown, KNOWN));
  checkName(cls, options.name);
  checkParts(cls, options);
  checkServing(cls, options);
}
