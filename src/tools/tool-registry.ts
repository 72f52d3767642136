/**
 * @module tools/tool-registry
 * `ToolRegistry`: an injectable, ordered set of tools with unique names.
 */
import { OptionsError } from "../errors/options.error.js";
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import "reflect-metadata";
import { container as rootContainer, injectable, type DependencyContainer } from "tsyringe";
import { DuplicateToolError } from "../errors/duplicate-tool.error.js";
import { FunctionTool } from "./function-tool.js";
import { getToolMetadata, type ToolClass } from "./tool.decorator.js";
import { classTool, injectsRunContext } from "./tool-class.js";
import type { Tool } from "./tool.js";
import type { RunContext } from "../context/run-context.js";

/** Something a registry accepts: a `Tool` object or a `@Tool` class. */
export type ToolLike = Tool | ToolClass<never>;

/** Options for registering `@Tool` classes. */
export interface RegisterOptions {
  /**
   * The container that builds `@Tool` classes (their constructor dependencies
   * come from it). Default: a fresh child of tsyringe's root container, so
   * nothing is registered globally.
   */
  readonly container?: DependencyContainer;
}

/** The options `fromTools` and `register` accept, declared once. */
const REGISTER_OPTIONS = {
  container: opt.that<DependencyContainer>(
    (v) =>
      typeof (v as DependencyContainer | null)?.resolve === "function" &&
      typeof (v as DependencyContainer).createChildContainer === "function",
    "a tsyringe DependencyContainer (e.g. container.createChildContainer())",
  ),
} satisfies Record<keyof RegisterOptions, OptionRule<unknown>>;

/** Turn a resolved `@Tool` class instance into a `Tool`. */
export function toolFromInstance(cls: ToolClass<never>, instance: { run(input: never, ctx: RunContext): unknown }): FunctionTool {
  const meta = getToolMetadata(cls);
  if (!meta) throw new OptionsError("toolFromInstance", "cls", `${cls.name} is not a @Tool class`);
  return new FunctionTool(meta, (input: never, ctx: RunContext) => instance.run(input, ctx), `class ${cls.name}`);
}

function ownerOf(t: Tool): string {
  return t instanceof FunctionTool
    ? t.owner
    : `${t.constructor?.name && t.constructor.name !== "Object" ? t.constructor.name : "tool object"} '${t.name}'`;
}

/**
 * An ordered set of tools, unique by name. Injectable: a module's container
 * resolves one per module. Refuses a duplicate name with a `DuplicateToolError`
 * naming both owners.
 */
@injectable()
export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();

  /**
   * A registry holding `tools` (objects or `@Tool` classes built through `options.container`).
   * @throws OptionsError for an unknown option (`contianer`), a `container` that is not a
   *   tsyringe container, `null` options, or an item that is not a tool.
   * @throws DuplicateToolError when two tools share a name.
   */
  static fromTools(tools: Iterable<ToolLike>, options?: RegisterOptions): ToolRegistry {
    const container = options === undefined ? undefined : checkOptions(options, "ToolRegistry.fromTools", REGISTER_OPTIONS).container;
    const r = new ToolRegistry();
    for (const t of tools) r.add(t, container);
    return r;
  }

  /**
   * Add a tool. A `@Tool` class is resolved through `options.container` (its
   * dependencies injected): once, now — or, when it injects the `RunContext`
   * (itself or through a class the container builds for it), per call, in a
   * child container where `RunContext` is that call's context (the same
   * scoping bootstrap gives a module's tools). Returns the registered `Tool`.
   * @throws OptionsError for an unknown option (`contianer`), a `container` that is not a
   *   tsyringe container, `null` options, or an item that is not a tool.
   * @throws DuplicateToolError when a tool of that name is registered already.
   */
  register(item: ToolLike, options?: RegisterOptions): Tool {
    return this.add(item, options === undefined ? undefined : checkOptions(options, "ToolRegistry.register", REGISTER_OPTIONS).container);
  }

  /** `register` with its options checked: `container` is a container or unset. */
  private add(item: ToolLike, container: DependencyContainer | undefined): Tool {
    let t: Tool;
    if (typeof item === "function") {
      if (!getToolMetadata(item)) {
        throw new OptionsError(
          "ToolRegistry.register",
          "item",
          `ToolRegistry.register: ${item.name || "anonymous class"} is a class without @Tool; decorate it with ` +
            `@Tool({...}) or pass a Tool object`,
        );
      }
      const c = container ?? rootContainer.createChildContainer();
      t = classTool(c, item, injectsRunContext(c, item));
    } else {
      if (!item || typeof item !== "object" || typeof item.name !== "string" || typeof item.run !== "function") {
        throw new OptionsError(
          "ToolRegistry.register",
          "item",
          `ToolRegistry.register: expected a Tool object (name, description, schema, run) or a @Tool class, got ` +
            `${item === null ? "null" : typeof item}`,
        );
      }
      t = item;
    }
    const existing = this.byName.get(t.name);
    if (existing) throw new DuplicateToolError(t.name, ownerOf(existing), ownerOf(t));
    this.byName.set(t.name, t);
    return t;
  }

  /** The tool named `name`, or `undefined`. */
  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /** True when a tool named `name` is registered. */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** All tools, in registration order. */
  tools(): Tool[] {
    return [...this.byName.values()];
  }

  /** All names, in registration order. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The number of tools. */
  get size(): number {
    return this.byName.size;
  }

  /** The registered tools, in registration order. */
  [Symbol.iterator](): Iterator<Tool> {
    return this.byName.values();
  }
}
