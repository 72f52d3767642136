/**
 * @module tools/tool-class
 * The one way a `@Tool` class becomes a `Tool`, used by `ToolRegistry` and by
 * bootstrap: built once from a container, or — when it depends on the call's
 * `RunContext` — built per call in a child container holding that call's
 * context, so its events and cancellation are the call's own.
 */
import type { DependencyContainer } from "tsyringe";
import { TOKENS } from "../keys.js";
import { RunContext } from "../context/run-context.js";
import { FunctionTool } from "./function-tool.js";
import { getToolMetadata, type ToolClass } from "./tool.decorator.js";
import { constructorParams, paramIndexes, paramToken } from "./constructor-params.js";

type Instance = { run(input: never, ctx: RunContext): unknown };
type Ctor = abstract new (...args: never[]) => unknown;

/** A child of `c` in which the call's context is what `RunContext` (class or token) resolves to. */
export function callScope(c: DependencyContainer, ctx: RunContext): DependencyContainer {
  const scope = c.createChildContainer();
  scope.register(RunContext, { useValue: ctx });
  scope.register(TOKENS.RunContext, { useValue: ctx });
  return scope;
}

/**
 * A `Tool` from the `@Tool` class `cls`, its instance resolved through `c`.
 * `perCall`: build it per call in `callScope(c, ctx)` (it depends on the
 * context, directly or through a dependency); otherwise build it once, now.
 */
export function classTool(c: DependencyContainer, cls: ToolClass<never>, perCall: boolean): FunctionTool {
  const meta = getToolMetadata(cls)!;
  const owner = `class ${cls.name}`;
  if (!perCall) {
    const instance = c.resolve(cls as never) as Instance;
    return new FunctionTool(meta, (input: never, ctx: RunContext) => instance.run(input, ctx), owner);
  }
  return new FunctionTool(
    meta,
    (input: never, ctx: RunContext) => (callScope(c, ctx).resolve(cls as never) as Instance).run(input, ctx),
    owner,
  );
}

/**
 * Whether `cls` injects the `RunContext` (class or token), itself or through a
 * class the container `c` would build for it (one it has no registration for).
 * A dependency registered in `c` is taken as it is.
 */
export function injectsRunContext(c: DependencyContainer, cls: Ctor, seen = new Set<unknown>()): boolean {
  if (seen.has(cls)) return false;
  seen.add(cls);
  const params = constructorParams(cls);
  for (const i of paramIndexes(params)) {
    const { token } = paramToken(params, i);
    if (token === RunContext || token === TOKENS.RunContext) return true;
    if (typeof token === "function" && !c.isRegistered(token as never, true) && injectsRunContext(c, token as Ctor, seen)) return true;
  }
  return false;
}
