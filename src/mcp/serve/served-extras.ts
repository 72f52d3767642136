/**
 * @module mcp/serve/served-extras
 * What a served registry offers besides tools: its resources (fixed URIs and
 * URI templates) and prompts, checked and indexed once when served, with the
 * `resources/list`, `resources/templates/list` and `prompts/list` results.
 * Growable: `add()` on a running spec extends the same catalog (the caller
 * sends `list_changed`).
 */
import "reflect-metadata";
import { container as rootContainer, type DependencyContainer } from "tsyringe";
import type { RunContext } from "../../context/run-context.js";
import { PromptTemplate } from "../../prompts/prompt-template.js";
import { getPromptMetadata, isPromptClass, type PromptClass } from "../../tools/prompt.decorator.js";
import { getResourceMetadata, isResourceClass, type ResourceClass } from "../../tools/resource.decorator.js";
import type { ServablePrompt, ServableResource } from "../../tools/served-items.js";
import {
  cacheHintProblem,
  frozenCacheHint,
  resolvePromptOptions,
  resolveResourceOptions,
  templateVariables,
  type CacheHint,
  type PromptArgument,
} from "../../tools/served-options.js";
import { pyList } from "../../util/format.js";
import { sanitiseToolName } from "../../wire/names.js";
import { AgentkitError } from "../../errors/agentkit.error.js";
import { OptionsError } from "../../errors/options.error.js";
import type { ServedSkills } from "./served-skills.js";

/** A resource to serve: a `@Resource` class (built once by the container) or a `ServableResource` object. */
export type ResourceSource = ResourceClass | ServableResource;

/**
 * A prompt to serve: a `@Prompt` class, a `ServablePrompt` object, or a core
 * `Prompt` template (its `{{placeholders}}` become required arguments; it is
 * recognised as one at run time, and is already a `ServablePrompt` by shape,
 * so it is not a third member here: that keeps `render`'s parameter typed in
 * an object literal).
 */
export type PromptSource = PromptClass | ServablePrompt;

/**
 * The `prompts` option: a list of prompt sources, or a record of name ->
 * static text, core `PromptTemplate` (what `mcpPrompts()` returns) or prompt object
 * (served under the record's key). The record's value type names
 * `ServablePrompt`, which a core `PromptTemplate` is by shape, so that `render` in an
 * object literal of the list form keeps its typed parameter.
 */
export type PromptsOption = readonly PromptSource[] | Readonly<Record<string, string | ServablePrompt>>;

/** One served resource and, for a template, its matcher. */
export interface ServedResource {
  readonly resource: ServableResource;
  /** The fixed URI or the template text. */
  readonly key: string;
  /** Template variables (empty for a fixed URI). */
  readonly variables: readonly string[];
  /** For a template: the variables a URI binds, or `undefined` when it does not match. */
  readonly match?: (uri: string) => Record<string, string> | undefined;
}

/** One served prompt under its wire name. */
export interface ServedPrompt {
  readonly prompt: ServablePrompt;
  /** The sanitised name on the wire. */
  readonly name: string;
  readonly arguments: readonly PromptArgument[];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A matcher for `{var}` (one segment, percent-decoded) and `{+var}` (may hold '/'). */
export function templateMatcher(template: string): (uri: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = template.split(/(\{\+?[A-Za-z0-9_]+\})/).map((part) => {
    const m = /^\{(\+?)([A-Za-z0-9_]+)\}$/.exec(part);
    if (!m) return escapeRegExp(part);
    names.push(m[2]!);
    return m[1] ? "(.+)" : "([^/?#]+)";
  });
  const re = new RegExp(`^${source.join("")}$`);
  return (uri) => {
    const m = re.exec(uri);
    if (!m) return undefined;
    const out: Record<string, string> = {};
    names.forEach((n, i) => {
      const raw = m[i + 1]!;
      try {
        out[n] = decodeURIComponent(raw);
      } catch {
        out[n] = raw;
      }
    });
    return out;
  };
}

function isServableResource(v: unknown): v is ServableResource {
  return !!v && typeof v === "object" && typeof (v as ServableResource).read === "function";
}

function isServablePrompt(v: unknown): v is ServablePrompt {
  return (
    !!v && typeof v === "object" && typeof (v as ServablePrompt).render === "function" && typeof (v as ServablePrompt).name === "string"
  );
}

/**
 * A `@Resource` class as a `ServableResource`. `instance(ctx)` gives the
 * object each request runs on: one built once, or (DI) one per request built
 * in a scope holding that request's context.
 */
export function resourceFromClass(cls: ResourceClass, instance: (ctx: RunContext) => InstanceType<ResourceClass>): ServableResource {
  const { variables: _variables, ...meta } = getResourceMetadata(cls)!;
  const proto = cls.prototype as { list?: unknown; complete?: unknown };
  return Object.freeze({
    ...meta,
    read: (params: Record<string, string>, ctx: RunContext) => instance(ctx).read(params, ctx),
    ...(typeof proto.list === "function" ? { list: (ctx: RunContext) => instance(ctx).list!(ctx) } : {}),
    ...(typeof proto.complete === "function"
      ? { complete: (a: string, v: string, ctx: RunContext) => instance(ctx).complete!(a, v, ctx) }
      : {}),
  });
}

/** A `@Prompt` class as a `ServablePrompt`; `instance(ctx)` as for `resourceFromClass`. */
export function promptFromClass(cls: PromptClass, instance: (ctx: RunContext) => InstanceType<PromptClass>): ServablePrompt {
  const meta = getPromptMetadata(cls)!;
  const proto = cls.prototype as { complete?: unknown };
  return Object.freeze({
    ...meta,
    render: (args: Record<string, string>, ctx: RunContext) => instance(ctx).render(args, ctx),
    ...(typeof proto.complete === "function"
      ? { complete: (a: string, v: string, ctx: RunContext) => instance(ctx).complete!(a, v, ctx) }
      : {}),
  });
}

/** A core `PromptTemplate` as a `ServablePrompt`: each `{{placeholder}}` a required argument. */
export function promptFromTemplate(p: PromptTemplate, name = p.name): ServablePrompt {
  const placeholders = [...new Set([...p.template.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1]!))];
  return Object.freeze({
    name,
    description: `Prompt '${p.name}' (version ${p.version})`,
    arguments: placeholders.map((n) => ({ name: n, required: true })),
    render: (args: Record<string, string>) => p.render(args),
  });
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * `hint` checked (undefined passes) and frozen.
 *
 * @throws OptionsError naming `where`, what was given and what is accepted.
 */
export function checkCacheHint(hint: CacheHint | undefined, where: string): CacheHint | undefined {
  if (hint === undefined) return undefined;
  const problem = cacheHintProblem(hint);
  if (problem) throw new OptionsError(where, "cacheHint", `${where}: ${problem}`);
  return frozenCacheHint(hint);
}

/** Normalise one resource source; throws `OptionsError` for something that is neither a class nor a definition. */
export function toServableResource(item: unknown, i: number, c: DependencyContainer = rootContainer): ServableResource {
  if (isResourceClass(item))
    return resourceFromClass(
      item,
      once(() => c.resolve(item as never)),
    );
  if (isServableResource(item)) {
    const meta = resolveResourceOptions(
      String(item.name ?? item.uri ?? item.uriTemplate),
      "resource",
      {
        uri: item.uri,
        uriTemplate: item.uriTemplate,
        name: item.name,
        description: item.description,
        mimeType: item.mimeType,
        cacheHint: item.cacheHint,
        scopes: item.scopes,
      } as never,
      "resource",
    );
    return Object.freeze({
      ...item,
      name: meta.name,
      ...(meta.cacheHint ? { cacheHint: meta.cacheHint } : {}),
      ...(meta.scopes ? { scopes: meta.scopes } : {}),
    });
  }
  throw new OptionsError(
    "serveRegistry",
    "resources",
    `resources[${i}] (${typeof item === "function" ? (item as { name?: string }).name : typeof item}) is neither a ` +
      `@Resource class nor a resource object { uri | uriTemplate, name, read(params, ctx) }`,
  );
}

/** Normalise the `prompts` option to `ServablePrompt`s; throws `OptionsError` for an item that is none of the accepted forms. */
export function toServablePrompts(option: PromptsOption | undefined, c: DependencyContainer = rootContainer): ServablePrompt[] {
  if (option === undefined) return [];
  if (!Array.isArray(option)) {
    if (!option || typeof option !== "object")
      throw new OptionsError(
        "serveRegistry",
        "prompts",
        "prompts must be an array of prompts or a record of name -> text or PromptTemplate",
      );
    return Object.entries(option as Record<string, unknown>).map(([name, v]) => {
      if (typeof v === "string") return Object.freeze({ name, arguments: [], render: () => v });
      if (v instanceof PromptTemplate) return promptFromTemplate(v, name);
      if (v && typeof v === "object" && typeof (v as ServablePrompt).render === "function")
        return Object.freeze({
          ...(v as ServablePrompt),
          ...resolvePromptOptions(
            name,
            "prompt",
            {
              name,
              description: (v as ServablePrompt).description,
              arguments: (v as ServablePrompt).arguments,
              scopes: (v as ServablePrompt).scopes,
            },
            name,
          ),
        });
      throw new OptionsError(
        "serveRegistry",
        "prompts",
        `prompts['${name}'] must be a string, a PromptTemplate or a prompt object { name, render }, got ${typeof v}`,
      );
    });
  }
  return (option as readonly unknown[]).map((item, i) => {
    if (isPromptClass(item))
      return promptFromClass(
        item,
        once(() => c.resolve(item as never)),
      );
    if (item instanceof PromptTemplate) return promptFromTemplate(item);
    if (isServablePrompt(item)) {
      const meta = resolvePromptOptions(
        item.name,
        "prompt",
        { name: item.name, description: item.description, arguments: item.arguments, scopes: item.scopes },
        item.name,
      );
      return Object.freeze({ ...item, ...meta });
    }
    throw new OptionsError(
      "serveRegistry",
      "prompts",
      `prompts[${i}] (${typeof item === "function" ? (item as { name?: string }).name : typeof item}) is neither a ` +
        `@Prompt class, a PromptTemplate, nor a prompt object { name, render(args, ctx) }`,
    );
  });
}

/**
 * The resources and prompts of one served registry. Fixed URIs and template
 * texts are unique (a second one throws code `mcp_name`); prompt names are sanitised to `[A-Za-z0-9_-]` and two that
 * collide once sanitised throw the same way.
 */
export class ServedExtras {
  readonly fixed = new Map<string, ServedResource>();
  readonly templates: ServedResource[] = [];
  readonly prompts = new Map<string, ServedPrompt>();

  constructor(
    resources: readonly ServableResource[] = [],
    prompts: readonly ServablePrompt[] = [],
    /** A folder of skills served beside them (loaded: `loadServedSkills`), attached to each session's server. */
    readonly skills?: ServedSkills,
  ) {
    for (const r of resources) this.addResource(r);
    for (const p of prompts) this.addPrompt(p);
  }

  /** True when there is at least one resource, or skills (their files are `skill://` resources). */
  get hasResources(): boolean {
    return this.fixed.size > 0 || this.templates.length > 0 || this.skills !== undefined;
  }

  /** True when there is at least one prompt. */
  get hasPrompts(): boolean {
    return this.prompts.size > 0;
  }

  /** Add a resource; throws code `mcp_name` when its URI or template is already served. */
  addResource(resource: ServableResource): ServedResource {
    const key = resource.uri ?? resource.uriTemplate!;
    const clash = this.fixed.get(key) ?? this.templates.find((t) => t.key === key);
    if (clash)
      throw new AgentkitError(
        "mcp_name",
        `resources '${clash.resource.name}' and '${resource.name}' both serve ${JSON.stringify(key)}; give one of them another URI`,
      );
    if (resource.uri !== undefined) {
      const entry = Object.freeze({ resource, key, variables: [] });
      this.fixed.set(key, entry);
      return entry;
    }
    const entry = Object.freeze({
      resource,
      key,
      variables: templateVariables("resource", resource.name, key),
      match: templateMatcher(key),
    });
    this.templates.push(entry);
    return entry;
  }

  /** Add a prompt; throws code `mcp_name` when its sanitised name is taken. */
  addPrompt(prompt: ServablePrompt): ServedPrompt {
    const name = sanitiseToolName(prompt.name);
    const clash = this.prompts.get(name);
    if (clash) {
      throw new AgentkitError(
        "mcp_name",
        `prompts '${clash.prompt.name}' and '${prompt.name}' both serve as '${name}' once sanitised to [A-Za-z0-9_-]; rename one of them`,
      );
    }
    const entry = Object.freeze({ prompt, name, arguments: Object.freeze([...(prompt.arguments ?? [])]) });
    this.prompts.set(name, entry);
    return entry;
  }

  /** The resource serving `uri` and the variables it binds: a fixed URI first, then the templates in order. */
  find(uri: string): { served: ServedResource; params: Record<string, string> } | undefined {
    const fixed = this.fixed.get(uri);
    if (fixed) return { served: fixed, params: {} };
    for (const t of this.templates) {
      const params = t.match!(uri);
      if (params) return { served: t, params };
    }
    return undefined;
  }

  /** The resource whose fixed URI or template text is `key` (a completion's `ref/resource` names one so), or `undefined`. */
  byKey(key: string): ServedResource | undefined {
    return this.fixed.get(key) ?? this.templates.find((t) => t.key === key);
  }

  /** `['a', 'b']`: the sorted prompt names, for the unknown-prompt message. */
  promptNames(): string {
    return pyList([...this.prompts.keys()].sort());
  }
}

/**
 * The resources and prompts of `options`, checked: `OptionsError` for an
 * item of no accepted form, `DefinitionError` for a bad definition object,
 * an `AgentkitError` (code `mcp_name`) for two resources on one URI or two prompts on one name.
 */
export function servedExtras(options: {
  resources?: readonly ResourceSource[];
  prompts?: PromptsOption;
  skills?: ServedSkills;
}): ServedExtras {
  if (options.resources !== undefined && !Array.isArray(options.resources))
    throw new OptionsError("serveRegistry", "resources", "resources must be an array of @Resource classes or resource objects");
  return new ServedExtras(
    (options.resources ?? []).map((r, i) => toServableResource(r, i)),
    toServablePrompts(options.prompts),
    options.skills,
  );
}
