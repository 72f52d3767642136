/**
 * @module tools/served-options
 * Checking `@Resource` and `@Prompt` options (and the plain definition objects
 * a served registry also accepts) when they are applied, not on first use:
 * the URI or URI template, the name, the declared prompt arguments.
 */
import { DefinitionError } from "../errors/tool-definition.error.js";
import { checkDefinition, unknownKey, unknownOptionMessage } from "../options/option-checks.js";
import { itemName } from "./tool-options.js";
import { describeValue, snakeCase } from "../util/format.js";

/**
 * How long an MCP 2026-07-28 client may keep a served result (`ttlMs`, ms, a
 * non-negative integer) and whether caches shared between users may keep it
 * (`cacheScope: "public"`) or only the asking client (`"private"`).
 */
export interface CacheHint {
  readonly ttlMs?: number;
  readonly cacheScope?: "public" | "private";
}

/** Options of `@Resource`: exactly one of `uri` (a fixed resource) and `uriTemplate` (RFC 6570 `{var}` / `{+var}`). */
export interface ResourceOptions {
  readonly uri?: string;
  readonly uriTemplate?: string;
  /** Default: the class name in snake_case. */
  readonly name?: string;
  readonly description?: string;
  /** The contents' MIME type; default `text/plain` for text a read returns as a string. */
  readonly mimeType?: string;
  /** MCP 2026-07-28: how long clients may keep this resource's reads (see `CacheHint`). Default `{ ttlMs: 0, cacheScope: "private" }`. */
  readonly cacheHint?: CacheHint;
}

/** `ResourceOptions` after checking, with the template's variable names. */
export interface ResolvedResourceOptions {
  readonly uri?: string;
  readonly uriTemplate?: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** The checked, frozen cache hint, when one was given. */
  readonly cacheHint?: CacheHint;
  /** The template's variables in order (`[]` for a fixed `uri`). */
  readonly variables: readonly string[];
}

/** One declared prompt argument (always a string on the wire). */
export interface PromptArgument {
  readonly name: string;
  readonly description?: string;
  /** Default `false`. */
  readonly required?: boolean;
}

/** Options of `@Prompt`. */
export interface PromptOptions {
  /** Default: the class name in snake_case. */
  readonly name?: string;
  readonly description?: string;
  /** The arguments `render(args)` accepts; a call naming another is refused. Default none. */
  readonly arguments?: readonly PromptArgument[];
}

/** `PromptOptions` after checking. */
export interface ResolvedPromptOptions {
  readonly name: string;
  readonly description?: string;
  readonly arguments: readonly PromptArgument[];
}

const TEMPLATE_VAR = /\{(\+?)([A-Za-z0-9_]+)\}/g;

/** A served item's name, by the one rule tools are named by (`itemName`). */
function checkName(where: string, target: string, name: unknown): string {
  return checkDefinition({ name }, target, where, { name: itemName }, "").name!;
}

function checkKeys(where: string, target: string, options: object, known: readonly string[]): void {
  const k = unknownKey(options, known);
  if (k !== undefined) throw new DefinitionError(target, k, unknownOptionMessage(where, k, known));
}

function optionalString(where: string, target: string, options: Record<string, unknown>, key: string): void {
  if (options[key] !== undefined && typeof options[key] !== "string") throw new DefinitionError(target, key, `${where}: '${key}' must be a string, got ${JSON.stringify(options[key])}`);
}

/** The variable names of a URI template; throws for an unbalanced brace or an operator other than `+`. */
export function templateVariables(where: string, target: string, template: string): string[] {
  const stripped = template.replace(TEMPLATE_VAR, "");
  if (/[{}]/.test(stripped)) {
    throw new DefinitionError(target, "uriTemplate", `${where}: 'uriTemplate' ${JSON.stringify(template)} has an expression this server cannot match; use {name} (one path segment) or {+name} (may hold '/')`);
  }
  return [...template.matchAll(TEMPLATE_VAR)].map((m) => m[2]!);
}

/** Check `@Resource` options (or a resource definition's fields). Throws `DefinitionError` naming the target and the key. */
export function resolveResourceOptions(target: string, kind: string, options: ResourceOptions | undefined, fallbackName: string): ResolvedResourceOptions {
  const where = `${kind} on ${target}`;
  if (!options || typeof options !== "object") throw new DefinitionError(target, "options", `${where}: options are required ({ uri | uriTemplate, name?, description?, mimeType?, cacheHint? })`);
  const o = options as Record<string, unknown>;
  for (const k of ["uri", "uriTemplate", "description", "mimeType"]) optionalString(where, target, o, k);
  if ((options.uri === undefined) === (options.uriTemplate === undefined)) {
    throw new DefinitionError(target, "uri", `${where}: give exactly one of 'uri' (a fixed resource) and 'uriTemplate' (e.g. "notes://{id}")`);
  }
  const uri = options.uri ?? options.uriTemplate!;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) throw new DefinitionError(target, options.uri !== undefined ? "uri" : "uriTemplate", `${where}: ${JSON.stringify(uri)} is not a URI (it needs a scheme, e.g. "notes://today")`);
  const variables = options.uriTemplate !== undefined ? templateVariables(where, target, options.uriTemplate) : [];
  if (options.uriTemplate !== undefined && variables.length === 0) throw new DefinitionError(target, "uriTemplate", `${where}: 'uriTemplate' has no {variable}; use 'uri' for a fixed resource`);
  const name = checkName(where, target, options.name ?? snakeCase(fallbackName));
  const hint = options.cacheHint;
  const problem = hint === undefined ? undefined : cacheHintProblem(hint);
  if (problem) throw new DefinitionError(target, "cacheHint", `${where}: cacheHint ${problem}`);
  return Object.freeze({
    ...(options.uri !== undefined ? { uri: options.uri } : { uriTemplate: options.uriTemplate }),
    name,
    description: options.description,
    mimeType: options.mimeType,
    ...(hint !== undefined ? { cacheHint: frozenCacheHint(hint) } : {}),
    variables: Object.freeze(variables),
  });
}

/**
 * What is wrong with a cache hint, or undefined when nothing is: `ttlMs` a
 * non-negative integer of milliseconds, `cacheScope` `"public"` or `"private"`.
 */
export function cacheHintProblem(hint: unknown): string | undefined {
  if (hint === null || typeof hint !== "object" || Array.isArray(hint)) return `must be { ttlMs?, cacheScope? }, got ${describeValue(hint)}`;
  const { ttlMs, cacheScope } = hint as Record<string, unknown>;
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && (ttlMs as number) >= 0)) return `ttlMs must be a non-negative integer of milliseconds, got ${describeValue(ttlMs)}`;
  if (cacheScope !== undefined && cacheScope !== "public" && cacheScope !== "private") return `cacheScope must be "public" or "private", got ${describeValue(cacheScope)}`;
  return undefined;
}

/** `hint`'s own two fields, frozen (after `cacheHintProblem` found nothing). */
export function frozenCacheHint(hint: CacheHint): CacheHint {
  return Object.freeze({ ...(hint.ttlMs !== undefined ? { ttlMs: hint.ttlMs } : {}), ...(hint.cacheScope !== undefined ? { cacheScope: hint.cacheScope } : {}) });
}

/** Check `@Prompt` options (or a prompt definition's fields). Throws `DefinitionError` naming the target and the key. */
export function resolvePromptOptions(target: string, kind: string, options: PromptOptions | undefined, fallbackName: string): ResolvedPromptOptions {
  const where = `${kind} on ${target}`;
  if (options !== undefined && (!options || typeof options !== "object")) throw new DefinitionError(target, "options", `${where}: options must be an object ({ name?, description?, arguments? })`);
  const o = (options ?? {}) as Record<string, unknown>;
  optionalString(where, target, o, "description");
  const name = checkName(where, target, options?.name ?? snakeCase(fallbackName));
  const args = options?.arguments ?? [];
  if (!Array.isArray(args)) throw new DefinitionError(target, "arguments", `${where}: 'arguments' must be an array of { name, description?, required? }`);
  const seen = new Set<string>();
  const checked = args.map((a: PromptArgument, i) => {
    if (!a || typeof a !== "object" || typeof a.name !== "string" || !/^[A-Za-z0-9_.-]+$/.test(a.name)) {
      throw new DefinitionError(target, "arguments", `${where}: arguments[${i}] needs a 'name' of [A-Za-z0-9_.-], got ${JSON.stringify(a?.name)}`);
    }
    if (seen.has(a.name)) throw new DefinitionError(target, "arguments", `${where}: argument '${a.name}' is declared twice`);
    seen.add(a.name);
    if (a.required !== undefined && typeof a.required !== "boolean") throw new DefinitionError(target, "arguments", `${where}: arguments[${i}].required must be a boolean`);
    if (a.description !== undefined && typeof a.description !== "string") throw new DefinitionError(target, "arguments", `${where}: arguments[${i}].description must be a string`);
    return Object.freeze({ name: a.name, ...(a.description !== undefined ? { description: a.description } : {}), required: a.required ?? false });
  });
  return Object.freeze({ name, description: options?.description, arguments: Object.freeze(checked) });
}

/** The option keys each decorator accepts (for the unknown-option message). */
export const RESOURCE_OPTION_KEYS = ["uri", "uriTemplate", "name", "description", "mimeType", "cacheHint"] as const;
/** See `RESOURCE_OPTION_KEYS`. */
export const PROMPT_OPTION_KEYS = ["name", "description", "arguments"] as const;

/** Refuse keys a decorator does not know (a typo must not be ignored). */
export function checkOptionKeys(kind: string, target: string, options: object | undefined, known: readonly string[]): void {
  if (options && typeof options === "object") checkKeys(`${kind} on ${target}`, target, options, known);
}
