/**
 * @module tools/tool.decorator
 * `@Tool({...})`: marks an injectable class as a tool. Records metadata; acts on nothing.
 */
import "reflect-metadata";
import { TOOL_METADATA } from "../keys.js";
import { resolveToolOptions, type ResolvedToolOptions, type ToolOptions } from "./tool-options.js";
import { classMetadata, markInjectableClass } from "./injectable-class.js";
import type { RunContext } from "../context/run-context.js";
import type { JsonSchema, Tool as ToolContract } from "./tool.js";
import type { DtoClass } from "./schema.js";
import type { StandardSchemaOutput, StandardSchemaV1 } from "./standard-schema.js";

/**
 * The structural tool contract (see `tools/tool.ts`). Declared here as well so
 * that `Tool` names both the interface and the decorator, as users expect.
 *
 * MCP SDK: its `Tool` is a tool as `tools/list` describes it (name, input
 * schema); this `Tool` is one this package runs (`run(args, ctx)`) and the
 * decorator that makes one, the name the design card gives both.
 */
export interface Tool extends ToolContract {}

/** What a `@Tool` class looks like: injectable, with `run(input, ctx)`. */
export interface ToolClass<I = never> {
  new (...args: never[]): {
    /** Runs the tool with its validated `input`; what it returns (or throws) is the call's result. */
    run(input: I, ctx: RunContext): unknown;
  };
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
 * `input` is a Standard Schema (zod 4.2+, valibot, arktype), a
 * class-validator DTO class or a JSON Schema object; omitted, the tool takes
 * no arguments. With a Standard Schema, `run`'s input must accept the
 * schema's output type (a mismatch is a compile error), e.g.
 * `run(input: z.infer<typeof RunCheckInput>)`.
 *
 * @example
 * ```ts
 * @Tool({ description: "Run the named check.", input: RunCheckInput, sideEffecting: false })
 * class RunCheck { constructor(private checks: CheckService) {} run(input: RunCheckInput) { ... } }
 * ```
 */
export function Tool<S extends StandardSchemaV1>(
  options: ToolOptions<S> & { readonly input: S },
): <C extends ToolClass<StandardSchemaOutput<S>>>(target: C) => void;
/** A tool class whose `input` is a JSON Schema or a DTO class (or absent). */
export function Tool(options: ToolOptions<JsonSchema | DtoClass>): ClassDecorator;
/** Options whose `input` kind is known only at run time (a `ToolOptions` value): checked when applied. */
export function Tool(options: ToolOptions): ClassDecorator;
export function Tool(options: ToolOptions): ClassDecorator {
  return (target) => {
    markInjectableClass(target, {
      decorator: "@Tool",
      method: "run",
      signature: "run(input, ctx)",
      key: TOOL_METADATA,
      meta: (name) => resolveToolOptions(name, "@Tool", options, name),
    });
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
