/**
 * @module test/mcp-di/in-memory.test
 * `connectInMemory(Module)` (src/mcp/di/in-memory.ts): a module served to an
 * `MCPClient` in this process, with no port and no child process, over the
 * real protocol: the tools' schemas, argument checks, results, the module's
 * guard, and a clean close.
 */
import "reflect-metadata";
import { container, injectable } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Tool, type Asker, type Decision } from "../../src/index.js";
import { connectInMemory, McpServer } from "../../src/mcp/index.js";
import { OptionsError } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";

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

const textOf = (r: unknown): string => ((r as { content: Array<{ text?: string }> }).content[0]?.text ?? "");

/** A parent container whose Asker answers `kind` and records the tools it was asked about. */
function parentAnswering(kind: "approve" | "reject", asked: string[]) {
  const asker: Asker = { ask: async (q): Promise<Decision> => (asked.push(String(q.toolCall?.name)), kind === "approve" ? { kind, actor: "ops" } : { kind, actor: "ops", note: "not today" }) };
  const parent = container.createChildContainer();
  parent.register(ASKER, { useValue: asker });
  return parent;
}

describe("connectInMemory", () => {
  it("serves the module to an MCPClient with no port and no process: schemas, calls, argument checks", async () => {
    await using conn = await connectInMemory(GreeterModule, { container: parentAnswering("approve", []), ctx: makeTestCtx() });
    expect(conn.app.transport).toBe("stdio");
    expect(conn.app.spec).toBeNull();
    expect(String(conn.client.server)).toBe("in-memory server 'GreeterModule'");
    const tools = await conn.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["greet", "ship"]);
    expect(tools[0]!.inputSchema).toMatchObject({ type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false });
    expect(textOf(await conn.client.callTool("greet", { name: "Ada" }))).toBe("Hello, Ada! (greeting 1)");
    const refused = await conn.client.callTool("greet", { name: 42 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe("tool 'greet' call rejected: argument 'name' must be string, got number 42. Accepted arguments: ['name']");
    expect(conn.app.get(Greetings).count).toBe(1);
  });

  it("the module's guard asks its Asker for a served call, as over stdio", async () => {
    const asked: string[] = [];
    await using conn = await connectInMemory(GreeterModule, { container: parentAnswering("reject", asked), ctx: makeTestCtx() });
    const r = await conn.client.callTool("ship", {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("not today");
    expect(asked).toEqual(["mcp__greeter__ship"]);
  });

  it("close() ends both sides and is idempotent; the client is closed after", async () => {
    const conn = await connectInMemory(GreeterModule, { container: parentAnswering("approve", []), ctx: makeTestCtx() });
    await conn.close();
    await conn.close();
    await expect(conn.app.closed).resolves.toBeUndefined();
    await expect(conn.client.listTools()).rejects.toThrow(/not entered|closed/i);
  });

  it("refuses an unknown option naming it", async () => {
    await expect(connectInMemory(GreeterModule, { port: 1 } as never)).rejects.toThrow(OptionsError);
    await expect(connectInMemory(GreeterModule, { port: 1 } as never)).rejects.toThrow(/connectInMemory: unknown option 'port'/);
  });
});
