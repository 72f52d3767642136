/**
 * @module tools/prompt.decorator
 * `@Prompt({...})`: marks an injectable class as a served MCP prompt. Records metadata; acts on nothing.
 */
import "reflect-metadata";
import { PROMPT_METADATA } from "../keys.js";
import { classMetadata, markInjectableClass } from "./injectable-class.js";
import { resolvePromptOptions, type PromptOptions, type ResolvedPromptOptions } from "./served-options.js";
import type { RunContext } from "../context/run-context.js";
import type { PromptRender } from "./served-items.js";

/** What a `@Prompt` class looks like: `render(args, ctx)`, optionally `complete(argument, value, ctx)`. */
export interface PromptClass {
  new (...args: never[]): {
    /** Renders the prompt's messages for `args`. */
    render(args: Record<string, string>, ctx: RunContext): PromptRender | Promise<PromptRender>;
    /** Completions for the prompt argument `argument` that start from `value` (at most 100 are sent). */
    complete?(argument: string, value: string, ctx: RunContext): readonly string[] | Promise<readonly string[]>;
  };
}

/** The frozen metadata `@Prompt` records on a class. */
export type PromptMetadata = ResolvedPromptOptions;

/**
 * Mark a class as a served prompt whose declared `arguments` reach
 * `render(args, ctx)`, which returns text (one user message) or messages
 * (the MCP SDK's `PromptMessage` shape: `role` and one content block).
 * Injectable like `@Tool`. Options are checked now; a bad one throws
 * `DefinitionError` naming the class and the key. (A template to fill in
 * is the core's `PromptTemplate`.)
 *
 * MCP SDK: its `Prompt` is a prompt as `prompts/list` describes it; this
 * `Prompt` is the decorator that serves one, as `@Tool` serves a tool.
 *
 * @example
 * ```ts
 * @Prompt({ description: "Review a file.", arguments: [{ name: "path", required: true }] })
 * class ReviewFile { render({ path }: { path: string }) { return `Review ${path} for bugs.`; } }
 * ```
 */
export function Prompt(options: PromptOptions = {}): ClassDecorator {
  return (target) => {
    markInjectableClass(target, {
      decorator: "@Prompt",
      method: "render",
      signature: "render(args, ctx)",
      key: PROMPT_METADATA,
      meta: (name) => {
        return resolvePromptOptions(name, "@Prompt", options, name);
      },
    });
  };
}

/** The metadata `@Prompt` recorded on `cls`, or `undefined` when it is not a prompt class. */
export function getPromptMetadata(cls: unknown): PromptMetadata | undefined {
  return classMetadata<PromptMetadata>(PROMPT_METADATA, cls);
}

/** True when `cls` carries `@Prompt`. */
export function isPromptClass(cls: unknown): cls is PromptClass {
  return getPromptMetadata(cls) !== undefined;
}
