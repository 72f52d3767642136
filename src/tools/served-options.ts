/**
 * @module tools/served-options
 * Checking `@Resource` and `@Prompt` options (and the plain definition objects
 * a served registry also accepts) when they are applied, not on first use:
 * the URI or URI template, the name, the declared prompt arguments.
 */
import { DefinitionError } from "../errors/tool-definition.error.js";
import { OptionsError } from "../errors/options.error.js";
import { checkDefinition, opt, type OptionRule } from "../options/option-checks.js";
import { frozenScopes, itemName, scopeList } from "./tool-options.js";
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
  /**
   * The OAuth scopes a hosted caller's token must all carry (`arc-agentkit/express`),
   * as `@Tool({ scopes })`: without them the resource (or template) is left out of
   * `resources/list` and `resources/templates/list`, and reading, completing or
   * subscribing to it is 403 `insufficient_scope`. Default none (any valid token).
   */
  readonly scopes?: readonly string[];
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
  /** The scopes a hosted call needs, deduplicated and frozen; present only when some were declared. */
  readonly scopes?: readonly string[];
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
  /**
   * The OAuth scopes a hosted caller's token must all carry (`arc-agentkit/express`),
   * as `@Tool({ scopes })`: without them the prompt is left out of `prompts/list`,
   * and getting or completing it is 403 `insufficient_scope`. Default none.
   */
  readonly scopes?: readonly string[];
}

/** `PromptOptions` after checking. */
export interface ResolvedPromptOptions {
  readonly name: string;
  readonly description?: string;
  readonly arguments: readonly PromptArgument[];
  /** The scopes a hosted call needs, deduplicated and frozen; present only when some were declared. */
  readonly scopes?: readonly string[];
}

const TEMPLATE_VAR = /\{(\+?)([A-Za-z0-9_]+)\}/g;

/** A served item's name, by the one rule tools are named by (`itemName`). */
function checkName(where: string, target: string, name: unknown): string {
  return checkDefinition({ name }, target, where, { name: itemName }, "").name!;
}

/** The variable names of a URI template; throws for an unbalanced brace or an operator other than `+`. */
export function templateVariables(where: string, target: string, template: string): string[] {
  const stripped = template.replace(TEMPLATE_VAR, "");
  if (/[{}]/.test(stripped)) {
    throw new DefinitionError(
      target,
      "uriTemplate",
      `${where}: 'uriTemplate' ${JSON.stringify(template)} has an expression this server cannot match; use {name} ` +
        `(one path segment) or {+name} (may hold '/')`,
    );
  }
  return [...template.matchAll(TEMPLATE_VAR)].map((m) => m[2]!);
}

/** `{ scopes }` (frozen, deduplicated) when some were declared, else nothing: an item without scopes keeps its shape. */
function declaredScopes(scopes: readonly string[] | undefined): { scopes?: readonly string[] } {
  return scopes?.length ? { scopes: frozenScopes(scopes) } : {};
}

/** A URI: a scheme, then anything (`notes://today`). */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** `uriTemplate`: a URI whose `{name}` / `{+name}` expressions this server can match, at least one. */
const uriTemplate: OptionRule<string | undefined> = (v, where, option) => {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !HAS_SCHEME.test(v))
    throw new OptionsError(
      where,
      option,
      `${where}: '${option}' must be a URI template with a scheme (e.g. "notes://{id}"), got ${describeValue(v)}`,
    );
  if (/[{}]/.test(v.replace(TEMPLATE_VAR, ""))) {
    throw new OptionsError(
      where,
      option,
      `${where}: '${option}' ${JSON.stringify(v)} has an expression this server cannot match; use {name} (one path ` +
        `segment) or {+name} (may hold '/')`,
    );
  }
  if (v.search(TEMPLATE_VAR) < 0)
    throw new OptionsError(where, option, `${where}: '${option}' has no {variable}; use 'uri' for a fixed resource`);
  return v;
};

/** `cacheHint`: `{ ttlMs?, cacheScope? }` (see `cacheHintProblem`), returned frozen. */
const cacheHint: OptionRule<CacheHint | undefined> = (v, where, option) => {
  if (v === undefined) return undefined;
  const problem = cacheHintProblem(v);
  if (problem) throw new OptionsError(where, option, `${where}: ${option} ${problem}`);
  return frozenCacheHint(v as CacheHint);
};

/** `@Resource`'s options (and a resource definition's fields), declared once. */
const RESOURCE_OPTIONS = {
  uri: opt.that<string>((v) => typeof v === "string" && HAS_SCHEME.test(v), 'a URI with a scheme (e.g. "notes://today")'),
  uriTemplate,
  name: itemName,
  description: opt.string(),
  mimeType: opt.string('a MIME type (e.g. "text/markdown")'),
  cacheHint,
  scopes: scopeList,
} satisfies Record<keyof ResourceOptions, OptionRule<unknown>>;

/** Check `@Resource` options (or a resource definition's fields). Throws `DefinitionError` naming the target and the key. */
export function resolveResourceOptions(
  target: string,
  kind: string,
  options: ResourceOptions | undefined,
  fallbackName: string,
): ResolvedResourceOptions {
  const where = `${kind} on ${target}`;
  const o = checkDefinition(
    options,
    target,
    where,
    RESOURCE_OPTIONS,
    "{ uri | uriTemplate, name?, description?, mimeType?, cacheHint?, scopes? }",
  );
  if ((o.uri === undefined) === (o.uriTemplate === undefined)) {
    throw new DefinitionError(
      target,
      "uri",
      `${where}: give exactly one of 'uri' (a fixed resource) and 'uriTemplate' (e.g. "notes://{id}")`,
    );
  }
  return Object.freeze({
    ...(o.uri !== undefined ? { uri: o.uri } : { uriTemplate: o.uriTemplate }),
    name: o.name ?? checkName(where, target, snakeCase(fallbackName)),
    description: o.description,
    mimeType: o.mimeType,
    ...(o.cacheHint !== undefined ? { cacheHint: o.cacheHint } : {}),
    ...declaredScopes(o.scopes),
    variables: Object.freeze(o.uriTemplate !== undefined ? templateVariables(where, target, o.uriTemplate) : []),
  });
}

/**
 * What is wrong with a cache hint, or undefined when nothing is: `ttlMs` a
 * non-negative integer of milliseconds, `cacheScope` `"public"` or `"private"`.
 */
export function cacheHintProblem(hint: unknown): string | undefined {
  if (hint === null || typeof hint !== "object" || Array.isArray(hint))
    return `must be { ttlMs?, cacheScope? }, got ${describeValue(hint)}`;
  const { ttlMs, cacheScope } = hint as Record<string, unknown>;
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && (ttlMs as number) >= 0))
    return `ttlMs must be a non-negative integer of milliseconds, got ${describeValue(ttlMs)}`;
  if (cacheScope !== undefined && cacheScope !== "public" && cacheScope !== "private")
    return `cacheScope must be "public" or "private", got ${describeValue(cacheScope)}`;
  return undefined;
}

/** `hint`'s own two fields, frozen (after `cacheHintProblem` found nothing). */
export function frozenCacheHint(hint: CacheHint): CacheHint {
  return Object.freeze({
    ...(hint.ttlMs !== undefined ? { ttlMs: hint.ttlMs } : {}),
    ...(hint.cacheScope !== undefined ? { cacheScope: hint.cacheScope } : {}),
  });
}

/**
 * A prompt's `arguments`: `{ name, description?, required? }` each, names of `[A-Za-z0-9_.-]` and distinct; returned
 * checked and frozen.
 */
const promptArguments: OptionRule<readonly PromptArgument[]> = (v, where, option) => {
  if (v === undefined) return Object.freeze([]);
  if (!Array.isArray(v))
    throw new OptionsError(
      where,
      option,
      `${where}: '${option}' must be an array of { name, description?, required? }, got ${describeValue(v)}`,
    );
  const seen = new Set<string>();
  return Object.freeze(
    v.map((a: PromptArgument, i) => {
      if (!a || typeof a !== "object" || typeof a.name !== "string" || !/^[A-Za-z0-9_.-]+$/.test(a.name)) {
        throw new OptionsError(where, option, `${where}: ${option}[${i}] needs a 'name' of [A-Za-z0-9_.-], got ${describeValue(a?.name)}`);
      }
      if (seen.has(a.name)) throw new OptionsError(where, option, `${where}: argument '${a.name}' is declared twice`);
      seen.add(a.name);
      if (a.required !== undefined && typeof a.required !== "boolean")
        throw new OptionsError(where, option, `${where}: ${option}[${i}].required must be true or false, got ${describeValue(a.required)}`);
      if (a.description !== undefined && typeof a.description !== "string")
        throw new OptionsError(
          where,
          option,
          `${where}: ${option}[${i}].description must be a string, got ${describeValue(a.description)}`,
        );
      return Object.freeze({
        name: a.name,
        ...(a.description !== undefined ? { description: a.description } : {}),
        required: a.required ?? false,
      });
    }),
  );
};

/** `@Prompt`'s options (and a prompt definition's fields), declared once. */
const PROMPT_OPTIONS = {
  name: itemName,
  description: opt.string(),
  arguments: promptArguments,
  scopes: scopeList,
} satisfies Record<keyof PromptOptions, OptionRule<unknown>>;

/**
 * Check `@Prompt` options (or a prompt definition's fields); none is no options. Throws `DefinitionError` naming the
 * target and the key.
 */
export function resolvePromptOptions(
  target: string,
  kind: string,
  options: PromptOptions | undefined,
  fallbackName: string,
): ResolvedPromptOptions {
  const where = `${kind} on ${target}`;
  const o = checkDefinition(
    options === undefined ? {} : options,
    target,
    where,
    PROMPT_OPTIONS,
    "{ name?, description?, arguments?, scopes? }",
  );
  return Object.freeze({
    name: o.name ?? checkName(where, target, snakeCase(fallbackName)),
    description: o.description,
    arguments: o.arguments,
    ...declaredScopes(o.scopes),
  });
}
