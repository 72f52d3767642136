/**
 * @module test/mcp-di/one-builder.test
 * One way to build a `@Tool` class, two refusals a Nest user expects:
 * - a module that forgets a service in `providers` is refused by bootstrap,
 *   naming the class being built and the missing dependency (it used to serve
 *   anyway, each tool with its own instance: "after 0 checks" after two ran);
 * - a `RunContext`-injecting class registered through `ToolRegistry` sees its
 *   call's context (events and cancellation reach the run), built per call.
 * Served over a real loopback MCP session where a call is the point.
 */
import "reflect-metadata";
import { container, inject, injectable } from "tsyringe";
import { describe, expect, it } from "vitest";
import { RunContext, Tool, ToolRegistry, BootstrapError } from "../../src/index.js";
import { TOKENS } from "../../src/keys.js";
import { MCPClient, McpServer, StreamableHttpServer, bootstrap, type ModuleClass } from "../../src/mcp/index.js";

/** The service the deploy scenario shares between two tools. */
@injectable()
class CheckCounter {
  n = 0;
}

@Tool({ description: "Run one pre-deploy check.", sideEffecting: false })
class RunCheck {
  constructor(private readonly counter: CheckCounter) {}
  run(): string {
    this.counter.n++;
    return `check ${this.counter.n} passed`;
  }
}

@Tool({ description: "Deploy, after the checks.", sideEffecting: false })
class Deploy {
  constructor(private readonly counter: CheckCounter) {}
  run(): string {
    return `deployed after ${this.counter.n} checks`;
  }
}

function deployModule(providers: readonly (typeof CheckCounter)[]): ModuleClass {
  class DeployModule {}
  McpServer({ name: "deploy", tools: [RunCheck, Deploy], providers: [...providers] })(DeployModule);
  return DeployModule;
}

function text(res: { content: Array<{ type: string; text?: string }> }): string {
  return res.content.map((b) => b.text ?? `[${b.type}]`).join("");
}

describe("bootstrap: a constructor dependency nobody supplies", () => {
  it("a forgotten provider is refused, naming the class and the missing dependency", async () => {
    const err = await bootstrap(deployModule([]), { container: container.createChildContainer() }).then(
      () => new Error("bootstrap served a module with a forgotten provider"),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BootstrapError);
    expect([(err as BootstrapError).step, (err as BootstrapError).message]).toEqual([
      "tools",
      "bootstrap(DeployModule): cannot build @Tool class RunCheck: its constructor argument 0 (CheckCounter) is not provided — add CheckCounter to the module's providers (or register it in the container given to bootstrap)",
    ]);
  });

  it("(control) with the provider listed, both tools share one instance over a real session", async () => {
    await using app = await bootstrap(deployModule([CheckCounter]), { container: container.createChildContainer() });
    await using client = await MCPClient.start(new StreamableHttpServer({ url: app.spec!.url!, headers: app.spec!.authHeaders }));
    await client.callTool("run_check", {});
    await client.callTool("run_check", {});
    expect(text(await client.callTool("deploy", {}))).toBe("deployed after 2 checks");
  });

  it("a dependency registered in the container given to bootstrap is accepted", async () => {
    const parent = container.createChildContainer();
    parent.registerSingleton(CheckCounter);
    await using app = await bootstrap(deployModule([]), { container: parent, serve: false });
    const ctx = new RunContext();
    await app.registry.get("run_check")!.run({}, ctx);
    expect(await app.registry.get("deploy")!.run({}, ctx)).toBe("deployed after 1 checks");
  });
});

/** Injects the context by class; reports what it was built with. */
@Tool({ description: "Report the context this instance was built with.", sideEffecting: false })
class Whoami {
  constructor(readonly built: RunContext) {}
  run(_input: unknown, ctx: RunContext): string {
    this.built.emit("whoami.ran", {});
    return JSON.stringify({ isThisCall: this.built === ctx, cancelled: this.built.cancelled });
  }
}

/** Injects the context by token, through a service the container builds for it. */
@injectable()
class Audit {
  constructor(@inject(TOKENS.RunContext) readonly call: RunContext) {}
}
@Tool({ description: "Report the context a dependency was built with.", sideEffecting: false })
class AuditedWhoami {
  constructor(private readonly audit: Audit) {}
  run(_input: unknown, ctx: RunContext): string {
    return JSON.stringify({ isThisCall: this.audit.call === ctx });
  }
}

@injectable()
class Tally {
  n = 0;
}
@Tool({ description: "Count its calls (no context injected: built once).", sideEffecting: false })
class Counted {
  constructor(private readonly tally: Tally) {}
  run(): number {
    return ++this.tally.n;
  }
}

describe("ToolRegistry: a class that injects RunContext", () => {
  it("is built per call with that call's context: its events reach the run, its cancellation is the call's", async () => {
    const registry = ToolRegistry.fromTools([Whoami], { container: container.createChildContainer() });
    const seen: string[] = [];
    const a = new RunContext();
    a.on((e) => e.event === "whoami.ran" && seen.push("a"));
    const b = new RunContext();
    b.on((e) => e.event === "whoami.ran" && seen.push("b"));
    const tool = registry.get("whoami")!;
    expect(JSON.parse(String(await tool.run({}, a)))).toEqual({ isThisCall: true, cancelled: false });
    b.cancel();
    expect(JSON.parse(String(await tool.run({}, b)))).toEqual({ isThisCall: true, cancelled: true });
    expect(seen).toEqual(["a", "b"]);
  });

  it("through a dependency injecting the token, the dependency gets the call's context too", async () => {
    const registry = ToolRegistry.fromTools([AuditedWhoami], { container: container.createChildContainer() });
    const ctx = new RunContext();
    expect(JSON.parse(String(await registry.get("audited_whoami")!.run({}, ctx)))).toEqual({ isThisCall: true });
  });

  it("(control) a class that injects no context is built once: its state lasts across calls", async () => {
    const registry = ToolRegistry.fromTools([Counted], { container: container.createChildContainer() });
    const ctx = new RunContext();
    const tool = registry.get("counted")!;
    await tool.run({}, ctx);
    expect(await tool.run({}, ctx)).toBe(2);
  });
});
