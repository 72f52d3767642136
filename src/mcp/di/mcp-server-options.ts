/**
 * @module mcp/di/mcp-server-options
 * The options of `@McpServer` and their declared rules (one spec, checked by
 * `options/option-checks`' `checkDefinition` when the decorator is applied):
 * each bad option throws `DefinitionError` naming the class and the key. Facts that need more than one module (imports, names of
 * composed tools, request scope) are bootstrap's scan.
 */
import { checkTasksOption, type TasksOptions } from "../serve/served-tasks.js";
import { checkResultsOption, type ResultsOptions } from "../serve/served-results.js";
import { checkSkillsOption, type SkillsOption } from "../serve/served-skills.js";
import type { InjectionToken } from "tsyringe";
import { checkDefinition, opt, type OptionRule } from "../../options/option-checks.js";
import { OptionsError } from "../../errors/options.error.js";
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
  | {
      readonly provide: InjectionToken;
      /** Makes the value from the module's container, each time the token is resolved (tsyringe's `instanceCachingFactory` keeps one). */
      readonly useFactory: (c: import("tsyringe").DependencyContainer) => unknown;
    };

/**
 * An entry of `imports`: an `@McpServer` module class, or a function
 * returning one (`() => OtherModule`) when the two files import each other
 * and the class is not defined yet when the decorator runs.
 */
export type ModuleImport = (abstract new (...args: never[]) => unknown) | (() => abstract new (...args: never[]) => unknown);

/**
 * Options of `@McpServer`.
 *
 * MCP SDK: its `McpServerOptions` are the options of its `McpServer` class;
 * these are the options of the decorator of that name.
 */
export interface McpServerOptions {
  /**
   * The served MCP server's name (`mcp__<name>__<tool>`): `serveRegistry`'s rule (`[A-Za-z0-9_-]+`, no `__`), refused
   * rather than rewritten.
   */
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
  /**
   * `"asker"`: calls to `requiresApproval` tools ask the `approvals` Asker
   * server-side first. Unset: they do when a person is handed to bootstrap
   * (`agentkit serve --approve web|tty|inbox`, `BootstrapOptions.asker`),
   * and not otherwise; `"none"`: never, even then.
   */
  readonly guard?: "asker" | "none";
  /** A JSONL audit file shared by the guard and the `ApprovalServer`: one fsync'd line per decision, written before the answer. */
  readonly auditPath?: string;
  /** `"token"` (default) or `"none"`, asked for by name. */
  readonly auth?: "token" | "none";
  /** A fixed port for the listener; default ephemeral. */
  readonly port?: number;
  /**
   * MCP tasks (`io.modelcontextprotocol/tasks`): where the module's tasks
   * live (`store`: an inbox store; default in-process memory) and how they
   * are handed out (`afterMs`, `ttlMs`, `pollIntervalMs`); see `TasksOptions`.
   */
  readonly tasks?: TasksOptions;
  /**
   * Served results within a budget, on by default (`maxChars`, default
   * 20,000; `store`): a result over it is a preview and a link, read on with
   * the module's `read_result` tool (listed beside the module's tools).
   * `false` turns the module-wide budget off. See `ResultsOptions`.
   */
  readonly results?: ResultsOptions | false;
  /**
   * A folder of skills the module serves (`<name>/SKILL.md` plus files, one
   * folder per skill; a relative path is from the working directory), or
   * `{ dir, scopes }` when hosted tokens need scopes to see them; see
   * `ServeRegistryOptions.skills`. Read when the module is built: a missing
   * folder or a malformed `SKILL.md` fails `bootstrap` (step `skills`),
   * naming the file. Only the module's own: an imported module's are not served.
   */
  readonly skills?: SkillsOption;
}

/** The name rule is `serveRegistry`'s own (`checkServerName`), so a module that decorates is a module that serves. */
const serverName: OptionRule<string | undefined> = (v, where, option) => {
  if (v === undefined) return undefined;
  try {
    return checkServerName(v);
  } catch (err) {
    throw new OptionsError(where, option, `${where}: '${option}' must match the MCP server-name rule: ${(err as Error).message}`);
  }
};

/** `imports`: module classes, or `() => Module` for one defined later; an `undefined` item is most often two files importing each other. */
const moduleImports: OptionRule<readonly ModuleImport[] | undefined> = (v, where, option) => {
  if (v === undefined) return undefined;
  const i = Array.isArray(v) ? v.findIndex((m) => typeof m !== "function") : -1;
  if (Array.isArray(v) && i < 0) return v as readonly ModuleImport[];
  const got = !Array.isArray(v)
    ? describeValue(v)
    : `imports[${i}]: ${v[i] === undefined ? "undefined (two files importing each other? write it as () => Module)" : typeof v[i]}`;
  throw new OptionsError(
    where,
    option,
    `${where}: '${option}' must be an array of @McpServer module classes (or () => Module for a module defined later), got ${got}`,
  );
};

/** `prompts`: an array of prompt sources, or a record of name -> text or `Prompt` (checked when served). */
const promptsOption: OptionRule<PromptsOption | undefined> = (v, where, option) => {
  if (v === undefined) return undefined;
  if (!v || typeof v !== "object")
    throw new OptionsError(
      where,
      option,
      `${where}: '${option}' must be an array of prompts or a record of name -> text or Prompt, got ${describeValue(v)}`,
    );
  if (Array.isArray(v)) opt.list(isPromptSource, "a @Prompt class, a Prompt, or a prompt object { name, render }")(v, where, option);
  return v as PromptsOption;
};

const isToolSource = (t: unknown): boolean =>
  typeof t === "function" ? isToolClass(t) : !!t && typeof (t as Tool).run === "function" && typeof (t as Tool).name === "string";
const isResourceSource = (r: unknown): boolean =>
  typeof r === "function" ? isResourceClass(r) : !!r && typeof (r as { read?: unknown }).read === "function";
const isPromptSource = (x: unknown): boolean =>
  typeof x === "function" ? isPromptClass(x) : !!x && typeof (x as { render?: unknown }).render === "function";
const isProvider = (p: unknown): boolean =>
  typeof p === "function" || (!!p && typeof p === "object" && "provide" in p && ("useClass" in p || "useValue" in p || "useFactory" in p));
const isRemote = (r: unknown): boolean => !!r && typeof (r as RemoteDeclaration).alias === "string";
const isCommand = (c: unknown): boolean => Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === "string") && c[0] !== "";

/** `@McpServer`'s options, declared once: each rule runs when the decorator is applied. */
const MCP_SERVER_OPTIONS = {
  name: opt.required(serverName, 'the served server\'s name, e.g. "engine"'),
  imports: moduleImports,
  tools: opt.required(
    opt.list<ToolClass<never> | Tool>(isToolSource, "a @Tool class or a Tool object"),
    "an array of @Tool classes or Tool objects; [] for none",
  ),
  resources: opt.list<ResourceSource>(isResourceSource, "a @Resource class or a resource object { uri | uriTemplate, name, read }"),
  prompts: promptsOption,
  providers: opt.list<Provider>(isProvider, "a class or { provide, useClass | useValue | useFactory }"),
  remotes: opt.list<RemoteDeclaration>(isRemote, "made with remote(alias, server, { prefix })"),
  transport: opt.optional(opt.oneOf<"http" | "stdio">(["http", "stdio"])),
  command: opt.that<readonly string[]>(
    isCommand,
    'a non-empty array of strings, program first (e.g. stdioCommand("./dist/mcp-server.js"))',
  ),
  env: opt.stringRecord(),
  timeoutMs: opt.timeoutMs(),
  approvals: opt.any<McpServerOptions["approvals"]>(),
  autoAllow: opt.stringArray(true),
  guard: opt.optional(opt.oneOf<"asker" | "none">(["asker", "none"])),
  auditPath: opt.string("a file path", true),
  auth: opt.optional(opt.oneOf<"token" | "none">(["token", "none"])),
  port: opt.optional(opt.port()),
  tasks: (v: unknown, where: string) => checkTasksOption(v, where),
  results: (v: unknown, where: string) => checkResultsOption(v, where),
  skills: (v: unknown, where: string) => checkSkillsOption(v, where),
} satisfies Record<keyof McpServerOptions, OptionRule<unknown>>;

/**
 * Check `@McpServer` options on the class named `cls`, as the decorator is
 * applied: the declared rules, then the facts that join two options (a
 * remote alias given twice; `guard: "asker"` and `auditPath` need
 * `approvals`). @throws DefinitionError naming the class, the key and what is accepted.
 */
export function checkMcpServerOptions(cls: string, options: McpServerOptions): void {
  const where = `@McpServer on ${cls}`;
  const o = checkDefinition(options, cls, where, MCP_SERVER_OPTIONS, "{ name, tools, ... }");
  const aliases = new Set<string>();
  for (const r of o.remotes ?? []) {
    if (aliases.has(r.alias)) throw new DefinitionError(cls, "remotes", `${where}: alias '${r.alias}' is declared twice`);
    aliases.add(r.alias);
  }
  if (o.guard === "asker" && o.approvals === undefined)
    throw new DefinitionError(cls, "guard", `${where}: guard: "asker" needs 'approvals' to name an Asker provider`);
  if (o.auditPath !== undefined && o.approvals === undefined)
    throw new DefinitionError(
      cls,
      "auditPath",
      `${where}: 'auditPath' records approval decisions; it needs 'approvals' to name an Asker provider`,
    );
}
