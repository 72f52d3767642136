/**
 * @module tools/resource.decorator
 * `@Resource({...})`: marks an injectable class as a served MCP resource. Records metadata; acts on nothing.
 */
import "reflect-metadata";
import { RESOURCE_METADATA } from "../keys.js";
import { classMetadata, markInjectableClass } from "./injectable-class.js";
import { resolveResourceOptions, type ResolvedResourceOptions, type ResourceOptions } from "./served-options.js";
import type { RunContext } from "../context/run-context.js";
import type { ResourceListEntry, ResourceRead } from "./served-items.js";

/** What a `@Resource` class looks like: `read(params, ctx)`, optionally `list(ctx)` and `complete(argument, value, ctx)`. */
export interface ResourceClass {
  new (...args: never[]): {
    /** Reads the resource at the URI whose template variables are `params`. */
    read(params: Record<string, string>, ctx: RunContext): ResourceRead | Promise<ResourceRead>;
    /** The concrete resources behind the template, for `resources/list`. */
    list?(ctx: RunContext): readonly ResourceListEntry[] | Promise<readonly ResourceListEntry[]>;
    /** Completions for the template variable `argument` that start from `value` (at most 100 are sent). */
    complete?(argument: string, value: string, ctx: RunContext): readonly string[] | Promise<readonly string[]>;
  };
}

/** The frozen metadata `@Resource` records on a class. */
export type ResourceMetadata = ResolvedResourceOptions;

/**
 * Mark a class as a served resource: a fixed `uri`, or a `uriTemplate`
 * whose `{variables}` reach `read(params, ctx)`, which returns text, bytes,
 * or the MCP SDK's `ResourceContents` (`{ uri, text | blob, mimeType? }`). Injectable like `@Tool`
 * (constructor dependencies from the module's container; the per-call
 * `RunContext` as `ctx`, or injected). Options are checked now; a bad one
 * throws `DefinitionError` naming the class and the key.
 *
 * MCP SDK: its `Resource` is a resource as `resources/list` describes it;
 * this `Resource` is the decorator that serves one, as `@Tool` serves a tool.
 *
 * @example
 * ```ts
 * @Resource({ uriTemplate: "notes://{id}", mimeType: "text/markdown", description: "One note." })
 * class Note { constructor(private notes: NoteStore) {} read({ id }: { id: string }) { return this.notes.get(id); } }
 * ```
 */
export function Resource(options: ResourceOptions): ClassDecorator {
  return (target) => {
    markInjectableClass(target, {
      decorator: "@Resource",
      method: "read",
      signature: "read(params, ctx)",
      key: RESOURCE_METADATA,
      meta: (name) => {
        return resolveResourceOptions(name, "@Resource", options, name);
      },
    });
  };
}

/** The metadata `@Resource` recorded on `cls`, or `undefined` when it is not a resource class. */
export function getResourceMetadata(cls: unknown): ResourceMetadata | undefined {
  return classMetadata<ResourceMetadata>(RESOURCE_METADATA, cls);
}

/** True when `cls` carries `@Resource`. */
export function isResourceClass(cls: unknown): cls is ResourceClass {
  return getResourceMetadata(cls) !== undefined;
}
