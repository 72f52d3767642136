/**
 * @module tools/tool.decorator
 * `@Tool({...})`: marks an injectable class as a tool. Records metadata; acts on nothing.
 */
import "reflect-metadata";
import { injectable } from "tsyringe";
import { TOOL_METADATA } from "../keys.js";
import { DefinitionError } from "../errors/tool-definition.error.js";
import { resolveToolOptions, type ResolvedToolOptions, type ToolOptions } from "./tool-options.js";
import { constructorParams, missingMetadataMessage, uninjectableParams } from "./constructor-params.js";
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
    const cls = target as unknown as { name: string; prototype: { run?: unknown } };
    if (typeof cls.prototype.run !== "function") {
      throw new DefinitionError(cls.name, "run", `@Tool on ${cls.name}: the class must define run(input, ctx)`);
    }
    const meta = resolveToolOptions(cls.name, "@Tool", options, cls.name);
    const params = constructorParams(target as never);
    const missing = uninjectableParams(params);
    if (missing.length) throw new DefinitionError(cls.name, "constructor", missingMetadataMessage(`@Tool on ${cls.name}`, params, missing, true));
    Reflect.defineMetadata(TOOL_METADATA, meta, target);
    injectable()(target as never);
  };
}

/** The metadata `@Tool` recorded on `cls`, or `undefined` when it is not a tool class. */
export function getToolMetadata(cls: unknown): ToolMetadata | undefined {
  if (typeof cls !== "function") return undefined;
  return Reflect.getOwnMetadata(TOOL_METADATA, cls) as ToolMetadata | undefined;
}

/** True when `cls` carries `@Tool`. */
export function isToolClass(cls: unknown): cls is ToolClass {
  return getToolMetadata(cls) !== undefined;
}
