/**
 * @module test/core/tools/tool.decorator.test
 * `@Tool` (src/tools/tool.decorator.ts): the class becomes injectable, its
 * constructor dependencies come by TYPE from the container it is resolved
 * through (the injection proof under vitest + vite 8), metadata is recorded
 * and frozen, and nothing lands in tsyringe's root container.
 */
import { optionsError } from "../helpers.js";
import "reflect-metadata";
import { IsOptional, IsBoolean, IsString } from "class-validator";
import { container, injectable, type DependencyContainer } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Tool, ToolRegistry, type RunContext } from "../../../src/index.js";
import { TOOL_METADATA } from "../../../src/keys.js";
import { getToolMetadata, isToolClass } from "../../../src/tools/tool.decorator.js";
import { toolFromInstance } from "../../../src/tools/tool-registry.js";
import { makeTestCtx } from "../../../src/testing/index.js";

@injectable()
class Clock {
  now(): string {
    return "12:00";
  }
}

@injectable()
class CheckService {
  readonly ran: string[] = [];
  constructor(readonly clock: Clock) {}
  verdict(name: string, strict: boolean): string {
    this.ran.push(name);
    return `${name}:${strict ? "strict" : "lax"}:ok@${this.clock.now()}`;
  }
}

class RunCheckInput {
  @IsString() name!: string;
  @IsOptional() @IsBoolean() strict?: boolean;
}

@Tool({ description: "Run the named check.", input: RunCheckInput, sideEffecting: false, caps: ["private_data"] })
class RunCheck {
  constructor(private readonly checks: CheckService) {}
  run(input: RunCheckInput, ctx: RunContext): string {
    ctx.emit("check.ran", { name: input.name });
    return this.checks.verdict(input.name, input.strict ?? false);
  }
}

@Tool({ description: "Takes nothing." })
class NoDeps {
  run(): string {
    return "plain";
  }
}

class NotATool {
  run(): string {
    return "nope";
  }
}

let scope: DependencyContainer;
beforeEach(() => {
  scope = container.createChildContainer();
});
afterEach(() => {
  // One child container per test; the root container never sees a registration.
  for (const token of [RunCheck, CheckService, Clock, NoDeps, ToolRegistry] as Array<new (...a: never[]) => unknown>)
    expect(container.isRegistered(token)).toBe(false);
});

describe("@Tool: injectable by type", () => {
  it("records the constructor's parameter types (design:paramtypes) under vitest", () => {
    expect(Reflect.getMetadata("design:paramtypes", RunCheck)).toEqual([CheckService]);
    expect(Reflect.getMetadata("design:paramtypes", CheckService)).toEqual([Clock]);
  });

  it("is resolvable by tsyringe with its dependency injected by type, with no @inject token", () => {
    const tool = scope.resolve(RunCheck);
    expect(tool).toBeInstanceOf(RunCheck);
    expect(tool.run({ name: "lint" }, makeTestCtx())).toBe("lint:lax:ok@12:00");
  });

  it("gets the instance the given container holds", () => {
    const checks = new CheckService(new Clock());
    scope.registerInstance(CheckService, checks);
    const t = toolFromInstance(RunCheck, scope.resolve(RunCheck));
    return t.run({ name: "types", strict: true }, makeTestCtx()).then((out) => {
      expect(out).toBe("types:strict:ok@12:00");
      expect(checks.ran).toEqual(["types"]);
    });
  });

  it("two child containers give two independent services", async () => {
    const other = container.createChildContainer();
    scope.registerSingleton(CheckService);
    other.registerSingleton(CheckService);
    await toolFromInstance(RunCheck, scope.resolve(RunCheck)).run({ name: "a" }, makeTestCtx());
    await toolFromInstance(RunCheck, other.resolve(RunCheck)).run({ name: "b" }, makeTestCtx());
    expect(scope.resolve(CheckService).ran).toEqual(["a"]);
    expect(other.resolve(CheckService).ran).toEqual(["b"]);
  });

  it("a class without constructor parameters resolves too", () => {
    expect(scope.resolve(NoDeps).run()).toBe("plain");
  });
});

describe("@Tool: metadata", () => {
  it("records one frozen, complete metadata object under agentkit:tool", () => {
    const meta = getToolMetadata(RunCheck)!;
    expect(Reflect.getOwnMetadata(TOOL_METADATA, RunCheck)).toBe(meta);
    expect(Object.isFrozen(meta)).toBe(true);
    expect(Object.isFrozen(meta.caps)).toBe(true);
    expect(Object.isFrozen(meta.parameters)).toBe(true);
    expect(meta).toMatchObject({
      name: "run_check",
      description: "Run the named check.",
      input: RunCheckInput,
      sideEffecting: false,
      requiresApproval: false,
      caps: ["private_data"],
    });
  });

  it("defaults: sideEffecting true, requiresApproval false, caps [], scopes [], task auto, no-argument schema", () => {
    expect(getToolMetadata(NoDeps)).toEqual({
      name: "no_deps",
      description: "Takes nothing.",
      input: undefined,
      parameters: { type: "object", properties: {}, additionalProperties: false },
      sideEffecting: true,
      requiresApproval: false,
      caps: [],
      scopes: [],
      task: "auto",
    });
  });

  it("isToolClass / getToolMetadata tell tool classes from others", () => {
    expect(isToolClass(RunCheck)).toBe(true);
    expect(isToolClass(NotATool)).toBe(false);
    expect(isToolClass({ run() {} })).toBe(false);
    expect(getToolMetadata(NotATool)).toBeUndefined();
    expect(getToolMetadata("run_check")).toBeUndefined();
  });

  it("metadata is not inherited: a subclass must carry its own @Tool", () => {
    class Sub extends NoDeps {}
    expect(isToolClass(Sub)).toBe(false);
  });

  it("the built tool carries the metadata and the class as owner", async () => {
    const t = toolFromInstance(RunCheck, scope.resolve(RunCheck));
    expect(t.name).toBe("run_check");
    expect(t.owner).toBe("class RunCheck");
    expect(t.schema).toEqual({ name: "run_check", description: "Run the named check.", parameters: getToolMetadata(RunCheck)!.parameters });
    const ctx = makeTestCtx();
    await t.run({ name: "lint" }, ctx);
    expect(ctx.events).toEqual([{ event: "check.ran", data: { name: "lint" } }]);
  });

  it("toolFromInstance refuses a class without @Tool", () => {
    expect(() => toolFromInstance(NotATool as never, new NotATool())).toThrow(optionsError("NotATool is not a @Tool class"));
  });

  it("applying the decorator touches no container", () => {
    @Tool({ description: "Late." })
    class LateTool {
      run(): string {
        return "late";
      }
    }
    expect(container.isRegistered(LateTool)).toBe(false);
    expect(scope.isRegistered(LateTool)).toBe(false);
  });
});
