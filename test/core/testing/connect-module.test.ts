/**
 * @module test/core/testing/connect-module.test
 * `connectModule(Module | tools)` from `arc-agentkit/testing`
 * (src/mcp/di/in-memory.ts): a module served to an `MCPClient` in this
 * process, with no port and no child process, over the real protocol: the
 * tools' schemas, argument checks, results, the module's guard, and a clean
 * close of both sides through the client's own `stop()`.
 */
import "reflect-metadata";
import { fileURLToPath } from "node:url";
import { container, injectable } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OptionsError, RunContext, tool, Tool, type Asker, type Decision } from "../../../src/index.js";
import { McpServer, remote, StdioServer } from "../../../src/mcp/index.js";
import { connectModule, makeTestCtx } from "../../../src/testing/index.js";
import { pidsMatching, waitGone } from "../../helpers/procs.js";

const TOOLS_SERVER = fileURLToPath(new URL("../../fixtures/servers/tools-stdio-server.mjs", import.meta.url));

@injectable()
class Greetings {
  count = 0;
}

const GreetInput = z.strictObject({ name: z.string() });
@Tool({ description: "Greet a person by name.", input: GreetInput, sideEffecting: false })
class Greet {
  constructor(private readonly greetings: Greetings) {}
  run(input: z.infer<typeof GreetInput>): string {
    return `Hello, ${input.name}! (greeting ${++this.greetings.count})`;
  }
}

@Tool({ description: "Ship the current release.", requiresApproval: true })
class Ship {
  run(): string {
    return "shipped";
  }
}

const ASKER = Symbol.for("test:in-memory:asker");
@McpServer({ name: "greeter", tools: [Greet, Ship], providers: [Greetings], approvals: ASKER, guard: "asker" })
class GreeterModule {}

const textOf = (r: unknown): string => (r as { content: Array<{ text?: string }> }).content[0]?.text ?? "";

/** A parent container whose Asker answers `kind` and records the tools it was asked about. */
function parentAnswering(kind: "approve" | "reject", asked: string[]) {
  const asker: Asker = {
    ask: async (q): Promise<Decision> => (
      asked.push(String(q.toolCall?.name)),
      kind === "approve" ? { kind, actor: "ops" } : { kind, actor: "ops", note: "not today" }
    ),
  };
  const parent = container.createChildContainer();
  parent.register(ASKER, { useValue: asker });
  return parent;
}

describe("connectModule", () => {
  it("returns an open MCPClient served by the module with no port and no process: schemas, calls, argument checks", async () => {
    await using client = await connectModule(GreeterModule, { container: parentAnswering("approve", []), ctx: makeTestCtx() });
    expect(String(client.server)).toBe("in-memory server 'GreeterModule'");
    const tools = await client.listTools();
    // The module's read_result is served too: result budgets are on by default.
    expect(tools.map((t) => t.name)).toEqual(["greet", "ship", "read_result"]);
    expect(tools[0]!.inputSchema).toMatchObject({
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    });
    expect(textOf(await client.callTool("greet", { name: "Ada" }))).toBe("Hello, Ada! (greeting 1)");
    const refused = await client.callTool("greet", { name: 42 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe("tool 'greet' call rejected: argument 'name' must be string, got number 42. Accepted arguments: ['name']");
    expect(textOf(await client.callTool("greet", { name: "Grace" }))).toBe("Hello, Grace! (greeting 2)");
  });

  it("serves a list of tools (a @Tool class and a tool() object) as a module of its own", async () => {
    const shout = tool({ name: "shout", description: "Say it loudly.", input: z.strictObject({ text: z.string() }) }, ({ text }) =>
      text.toUpperCase(),
    );
    await using client = await connectModule([Ship, shout], { ctx: makeTestCtx() });
    expect(String(client.server)).toBe("in-memory server 'tools'");
    expect((await client.listTools()).map((t) => t.name)).toEqual(["ship", "shout", "read_result"]);
    expect(textOf(await client.callTool("shout", { text: "hi" }))).toBe("HI");
  });

  it("the module's guard asks its Asker for a served call, as over stdio", async () => {
    const asked: string[] = [];
    await using client = await connectModule(GreeterModule, { container: parentAnswering("reject", asked), ctx: makeTestCtx() });
    const r = await client.callTool("ship", {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("not today");
    expect(asked).toEqual(["mcp__greeter__ship"]);
  });

  it("the client's stop() also stops the module (its remote server's process ends), and is idempotent", async () => {
    const tag = `connect-module-${process.pid}`;
    @McpServer({
      name: "front",
      tools: [],
      remotes: [remote("kb", new StdioServer({ command: process.execPath, args: [TOOLS_SERVER, "search", tag] }))],
    })
    class FrontModule {}
    const client = await connectModule(FrontModule, { ctx: new RunContext() });
    expect(pidsMatching(tag)).toHaveLength(1);
    await client.stop();
    await client.stop();
    expect(await waitGone(tag)).toEqual([]);
    await expect(client.listTools()).rejects.toThrow(/not entered|closed/i);
  });

  it("refuses an unknown option and a first argument that is neither a module nor tools, naming what is accepted", async () => {
    await expect(connectModule(GreeterModule, { port: 1 } as never)).rejects.toThrow(OptionsError);
    await expect(connectModule(GreeterModule, { port: 1 } as never)).rejects.toThrow(/connectModule: unknown option 'port'/);
    await expect(connectModule("greeter" as never)).rejects.toThrow(
      "connectModule: the first argument must be an @McpServer module class or an array of tools (@Tool classes or tool() objects), got string",
    );
  });
});
