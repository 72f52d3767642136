/**
 * @module tools/prompt.decorator
 * `@Prompt({...})`: marks an injectable class as a served MCP prompt. Records metadata; acts on nothing.
 */
import "reflect-metadata";
import { injectable } from "tsyringe";
import { PROMPT_METADATA } from "../keys.js";
import { DefinitionError } from "../errors/tool-definition.error.js";
import { constructorParams, missingMetadataMessage, uninjectableParams } from "./constructor-params.js";
import { checkOptionKeys, PROMPT_OPTION_KEYS, resolvePromptOptions, type PromptOptions, type ResolvedPromptOptions } from "./served-options.js";
import type { RunContext } from "../context/run-context.js";
import type { PromptRender } from "./served-items.js";

/** What a `@Prompt` class looks like: `render(args, ctx)`, optionally `complete(argument, value, ctx)`. */
export interface PromptClass {
  new (...args: never[]): {
    render(args: Record<string, string>, ctx: RunContext): PromptRender | Promise<PromptRender>;
    complete?(argument: string, value: string, ctx: RunContext): readonly string[] | Promise<readonly string[]>;
  };
}

/** The frozen metadata `@Prompt` records on a class. */
export type PromptMetadata = ResolvedPromptOptions;

/**
 * Mark a class as a served prompt whose declared `arguments` reach
 * `render(args, ctx)`, which returns text (one user message) or messages.
 * Injectable like `@Tool`. Options are checked now; a bad one throws
 * `DefinitionError` naming the class and the key. (The core `Prompt` class,
 * a template, is another thing with the same name: import this one from
 * `arc-agentkit/mcp`, under an alias where both meet.)
 *
 * @example
 * ```ts
 * @Prompt({ description: "Review a file.", arguments: [{ name: "path", required: true }] })
 * class ReviewFile { render({ path }: { path: string }) { return `Review ${path} for bugs.`; } }
 * ```
 */
export function Prompt(options: PromptOptions = {}): ClassDecorator {
  return (target) => {
    const cls = target as unknown as { name: string; prototype: { render?: unknown } };
    if (typeof cls.prototype.render !== "function") throw new DefinitionError(cls.name, "render", `@Prompt on ${cls.name}: the class must define render(args, ctx)`);
    checkOptionKeys("@Prompt", cls.name, options, PROMPT_OPTION_KEYS);
    const meta = resolvePromptOptions(cls.name, "@Prompt", options, cls.name);
    const params = constructorParams(target as never);
    const missing = uninjectableParams(params);
    if (missing.length) throw new DefinitionError(cls.name, "constructor", missingMetadataMessage(`@Prompt on ${cls.name}`, params, missing, true));
    Reflect.defineMetadata(PROMPT_METADATA, meta, target);
    injectable()(target as never);
  };
}

/** The metadata `@Prompt` recorded on `cls`, or `undefined` when it is not a prompt class. */
export function getPromptMetadata(cls: unknown): PromptMetadata | undefined {
  if (typeof cls !== "function") return undefined;
  return Reflect.getOwnMetadata(PROMPT_METADATA, cls) as PromptMetadata | undefined;
}

/** True when `cls` carries `@Prompt`. */
export function isPromptClass(cls: unknown): cls is PromptClass {
  return getPromptMetadata(cls) !== undefined;
}
