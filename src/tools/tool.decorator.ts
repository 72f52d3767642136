/**
 * @module tools/tool.decorator
 * `@Tool({...})`: marks an injectable class as a tool. Records metadata; acts on nothing.
 */
import "reflect-metadata";
import { TOOL_METADATA } from "../keys.js";
import { resolveToolOptions, type ResolvedToolOptions, type ToolOptions } from "./tool-options.js";
import { classMetadata, markInjectableClass } from "./injectable-class.js";
import type { RunContext } from "../context/run-context.js";
import type { Tool as ToolContract } from "./tool.js";

/**
 * The structural tool contract (see `tools/tool.ts`). Declared here as well so
 * that `Tool` names both the interface and the decorator, as users expect.
 */
export interface Tool extends ToolContract {}

/** What a `@Tool` class looks like: injectable, with `run(input, ctx)`. */
export interface ToolClass<I = never> {
  new (...args: never[]): { run(input: I, ctx: RunContext): unknown };
}

/** The frozen metadata `@Tool` records on a class. */
export type ToolMetadata = ResolvedToolOptions;

/**
 * Mark a class as a tool. The class becomes tsyringe-injectable (its
 * constructor dependencies come from the container); options are checked now
 * and a bad one throws `DefinitionError` naming the class and the key. So
 * does a constructor the container could not call: parameters without
 * `design:paramtypes` (a build that emits no decorator metadata, such as tsx
 * or esbuild) and without `@inject(Token)` on each (key `"constructor"`).
 * TypeScript applies a constructor's parameter decorators before its class
 * decorators, so the `@inject` tokens are visible here.
 *
 * @example
 * ```ts
 * @Tool({ description: "Run the named check.", input: RunCheckInput, sideEffecting: false })
 * class RunCheck { constructor(private checks: CheckService) {} run(input: RunCheckInput) { ... } }
 * ```
 */
export function Tool(options: ToolOptions): ClassDecorator {
  return (target) => {
    markInjectableClass(target, { decorator: "@Tool", method: "run", signature: "run(input, ctx)", key: TOOL_METADATA, meta: (name) => resolveToolOptions(name, "@Tool", options, name) });
  };
}

/** The metadata `@Tool` recorded on `cls`, or `undefined` when it is not a tool class. */
export function getToolMetadata(cls: unknown): ToolMetadata | undefined {
  return classMetadata<ToolMetadata>(TOOL_METADATA, cls);
}

/** True when `cls` carries `@Tool`. */
export function isToolClass(cls: unknown): cls is ToolClass {
  return getToolMetadata(cls) !== undefined;
}
