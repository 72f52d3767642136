/**
 * @module test/core/tools/tool-registry.test
 * `ToolRegistry` (src/tools/tool-registry.ts): ordered and unique by name;
 * `@Tool` classes built through the container it is given (one child
 * container per test, nothing in the root container); duplicates refused
 * naming both owners; injectable itself.
 */
import { optionsError } from "../helpers.js";
import "reflect-metadata";
import { container, injectable, type DependencyContainer } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AgentkitError,
  DuplicateToolError,
  Tool,
  ToolRegistry,
  tool,
  type RunContext,
  type Tool as ToolContract,
} from "../../../src/index.js";
import { FunctionTool } from "../../../src/tools/function-tool.js";
import { makeTestCtx } from "../../../src/testing/index.js";
import { thrown } from "../helpers.js";

@injectable()
class Greeter {
  greeting = "hello";
  greet(who: string): string {
    return `${this.greeting} ${who}`;
  }
}

@Tool({
  description: "Greet someone.",
  input: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
  sideEffecting: false,
})
class Greet {
  constructor(private readonly greeter: Greeter) {}
  run(input: { who: string }): string {
    return this.greeter.greet(input.who);
  }
}

@Tool({ name: "greet", description: "Another greet." })
class GreetAgain {
  run(): string {
    return "again";
  }
}

class Undecorated {
  run(): string {
    return "x";
  }
}

/** A hand-written Tool object (no base class, no registration). */
function objectTool(name: string): ToolContract {
  return {
    name,
    description: `The ${name} tool.`,
    schema: null,
    sideEffecting: false,
    requiresApproval: false,
    caps: [],
    run: async () => name,
  };
}

/** A class-based Tool implementation (structural, not @Tool). */
class EchoTool implements ToolContract {
  readonly description = "Echo.";
  readonly schema = null;
  readonly sideEffecting = false;
  readonly requiresApproval = false;
  readonly caps = [] as const;
  constructor(readonly name: string) {}
  async run(args: Record<string, unknown>, _ctx: RunContext): Promise<unknown> {
    return args;
  }
}

const ping = tool({ description: "Ping." }, function ping() {
  return "pong";
});

let scope: DependencyContainer;
beforeEach(() => {
  scope = container.createChildContainer();
});
afterEach(() => {
  for (const token of [Greet, GreetAgain, Greeter, ToolRegistry] as Array<new (...a: never[]) => unknown>)
    expect(container.isRegistered(token)).toBe(false);
});

/** The DuplicateToolError `fn` throws. */
function duplicate(fn: () => unknown): DuplicateToolError {
  const err = thrown(fn, DuplicateToolError);
  expect(err).toBeInstanceOf(AgentkitError);
  return err;
}

describe("ToolRegistry basics", () => {
  it("fromTools keeps registration order across tools, classes and objects", () => {
    const reg = ToolRegistry.fromTools([ping, Greet, objectTool("lookup"), new EchoTool("echo")], { container: scope });
    expect(reg.names()).toEqual(["ping", "greet", "lookup", "echo"]);
    expect(reg.tools().map((t) => t.name)).toEqual(["ping", "greet", "lookup", "echo"]);
    expect([...reg].map((t) => t.name)).toEqual(["ping", "greet", "lookup", "echo"]);
    expect(reg.size).toBe(4);
  });

  it("get / has", () => {
    const reg = ToolRegistry.fromTools([ping]);
    expect(reg.get("ping")).toBe(ping);
    expect(reg.has("ping")).toBe(true);
    expect(reg.get("pong")).toBeUndefined();
    expect(reg.has("pong")).toBe(false);
  });

  it("register returns the registered Tool (built from a class)", async () => {
    const reg = new ToolRegistry();
    const t = reg.register(Greet, { container: scope });
    expect(t).toBeInstanceOf(FunctionTool);
    expect(reg.get("greet")).toBe(t);
    expect(await t.run({ who: "ada" }, makeTestCtx())).toBe("hello ada");
  });

  it("tools() and names() are copies", () => {
    const reg = ToolRegistry.fromTools([ping]);
    reg.tools().pop();
    reg.names().pop();
    expect(reg.names()).toEqual(["ping"]);
  });

  it("refuses a class without @Tool, and things that are not tools", () => {
    const reg = new ToolRegistry();
    expect(() => reg.register(Undecorated as never)).toThrow(
      optionsError("ToolRegistry.register: Undecorated is a class without @Tool; decorate it with @Tool({...}) or pass a Tool object"),
    );
    expect(() => reg.register(null as never)).toThrow(
      optionsError("ToolRegistry.register: expected a Tool object (name, description, schema, run) or a @Tool class, got null"),
    );
    expect(() => reg.register({ name: "x" } as never)).toThrow(/expected a Tool object/);
    expect(reg.size).toBe(0);
  });
});

describe("fromTools and register check their options by one declared spec", () => {
  it("an unknown key, a wrong-kind container and null options are refused by name (never a silent fresh container)", () => {
    const c = container.createChildContainer();
    expect(() => ToolRegistry.fromTools([Greet], { contianer: c } as never)).toThrow(
      optionsError("ToolRegistry.fromTools: unknown option 'contianer'. Accepted options: container"),
    );
    expect(() => ToolRegistry.fromTools([Greet], { container: {} } as never)).toThrow(
      optionsError(
        "ToolRegistry.fromTools: 'container' must be a tsyringe DependencyContainer (e.g. container.createChildContainer()), got object {}",
      ),
    );
    expect(() => ToolRegistry.fromTools([Greet], null as never)).toThrow(
      optionsError("ToolRegistry.fromTools: options must be an object { container }, got null"),
    );
    const reg = new ToolRegistry();
    expect(() => reg.register(Greet, { contianer: c } as never)).toThrow(
      optionsError("ToolRegistry.register: unknown option 'contianer'. Accepted options: container"),
    );
    expect(() => reg.register(Greet, { container: "root" } as never)).toThrow(
      optionsError(
        `ToolRegistry.register: 'container' must be a tsyringe DependencyContainer (e.g. container.createChildContainer()), got string "root"`,
      ),
    );
    expect(() => reg.register(Greet, null as never)).toThrow(
      optionsError("ToolRegistry.register: options must be an object { container }, got null"),
    );
    expect(reg.size).toBe(0);
  });
});

describe("duplicate names are refused, naming both owners", () => {
  it("class vs class", () => {
    const reg = ToolRegistry.fromTools([Greet], { container: scope });
    const err = duplicate(() => reg.register(GreetAgain, { container: scope }));
    expect(err.message).toBe(
      "duplicate tool name 'greet' in registry: already registered by class Greet, refused for class GreetAgain. Rename one of them (the 'name' option of @Tool/tool()).",
    );
    expect(err.code).toBe("duplicate_tool");
    expect([err.toolName, err.existingOwner, err.incomingOwner]).toEqual(["greet", "class Greet", "class GreetAgain"]);
    expect(reg.get("greet")!.description).toBe("Greet someone.");
    expect(reg.size).toBe(1);
  });

  it("function vs object vs class instance", () => {
    const other = tool({ name: "ping", description: "Other ping." }, function otherPing() {});
    expect(duplicate(() => ToolRegistry.fromTools([ping, other])).message).toBe(
      "duplicate tool name 'ping' in registry: already registered by function ping, refused for function otherPing. Rename one of them (the 'name' option of @Tool/tool()).",
    );
    const err = duplicate(() => ToolRegistry.fromTools([objectTool("echo"), new EchoTool("echo")]));
    expect([err.existingOwner, err.incomingOwner]).toEqual(["tool object 'echo'", "EchoTool 'echo'"]);
  });

  it("fromTools refuses the whole set", () => {
    expect(() => ToolRegistry.fromTools([Greet, GreetAgain], { container: scope })).toThrow(DuplicateToolError);
  });
});

describe("@Tool classes through a given container", () => {
  it("dependencies come from that container", async () => {
    const greeter = new Greeter();
    greeter.greeting = "ahoy";
    scope.registerInstance(Greeter, greeter);
    const reg = ToolRegistry.fromTools([Greet], { container: scope });
    expect(await reg.get("greet")!.run({ who: "ada" }, makeTestCtx())).toBe("ahoy ada");
  });

  it("each container builds its own", async () => {
    const other = container.createChildContainer();
    other.register(Greeter, { useValue: Object.assign(new Greeter(), { greeting: "hej" }) });
    const a = ToolRegistry.fromTools([Greet], { container: scope });
    const b = ToolRegistry.fromTools([Greet], { container: other });
    expect(await a.get("greet")!.run({ who: "x" }, makeTestCtx())).toBe("hello x");
    expect(await b.get("greet")!.run({ who: "x" }, makeTestCtx())).toBe("hej x");
  });

  it("without a container, a fresh child of the root is used and the root stays empty", async () => {
    const reg = ToolRegistry.fromTools([Greet]);
    expect(await reg.get("greet")!.run({ who: "x" }, makeTestCtx())).toBe("hello x");
    expect(container.isRegistered(Greet)).toBe(false);
    expect(container.isRegistered(Greeter)).toBe(false);
  });

  it("registering touches the given container's registrations not at all", () => {
    ToolRegistry.fromTools([Greet], { container: scope });
    expect(scope.isRegistered(Greet)).toBe(false);
    expect(scope.isRegistered(Greeter)).toBe(false);
  });
});

describe("ToolRegistry is injectable", () => {
  it("resolves empty from a container", () => {
    const reg = scope.resolve(ToolRegistry);
    expect(reg).toBeInstanceOf(ToolRegistry);
    expect(reg.size).toBe(0);
  });

  it("can be held as a singleton of a child container and injected by type", () => {
    @injectable()
    class UsesRegistry {
      constructor(readonly registry: ToolRegistry) {}
    }
    scope.registerSingleton(ToolRegistry);
    scope.resolve(ToolRegistry).register(ping);
    expect(scope.resolve(UsesRegistry).registry.names()).toEqual(["ping"]);
    expect(container.isRegistered(UsesRegistry)).toBe(false);
  });
});
