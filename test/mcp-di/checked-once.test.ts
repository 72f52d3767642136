/**
 * @module test/mcp-di/checked-once.test
 * bootstrap checks each fact once: declarative rules when `@McpServer` is
 * applied, cross-cutting ones at scan, and build serves the checked plan
 * through the internal entries (`serveCatalog`, `approvalServerFromPolicy`)
 * without checking again. So a bad module is one error naming the class, the
 * member and what is accepted — never "bootstrap(M): the server could not
 * start: serveRegistry: ..." — and a fact planted in a plan after scan
 * reaches no second check (the public functions still refuse it).
 */
import "reflect-metadata";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { DefinitionError, RunContext, tool, type Asker } from "../../src/index.js";
import { McpServer, bootstrap, serveRegistry, type ModuleClass } from "../../src/mcp/index.js";
import type { McpServerOptions } from "../../src/mcp/di/mcp-server-options.js";
import { scanModule, type ModulePlan } from "../../src/mcp/di/scan.js";
import { buildModule, type BuiltModule } from "../../src/mcp/di/build.js";

/** The first error a module meets: when `@McpServer` is applied to a class named `className`, else when bootstrapped (serving over HTTP; stopped again if it came up). */
async function badModule(className: string, options: McpServerOptions): Promise<Error> {
  const cls = { [className]: class {} }[className]!;
  try {
    McpServer(options)(cls);
  } catch (err) {
    return err as Error;
  }
  try {
    const app = await bootstrap(cls as ModuleClass, { container: container.createChildContainer() });
    await app.stop();
  } catch (err) {
    return err as Error;
  }
  throw new Error(`${className} was accepted`);
}

const echo = (name: string) => tool({ name, description: "Echo.", sideEffecting: false }, () => "ok");
const approving: Asker = { ask: async () => ({ kind: "approve" }) };

async function built(plan: ModulePlan, run: (b: BuiltModule) => Promise<void> | void): Promise<void> {
  const b = await buildModule(plan);
  try {
    await run(b);
  } finally {
    for (const close of [...b.closers].reverse()) await close();
  }
}

describe("a bad module is one error, at decoration", () => {
  const cases: Array<[string, McpServerOptions, string, string]> = [
    [
      "EmptyCommand",
      { name: "cmd", tools: [], transport: "stdio", command: [] },
      "command",
      `@McpServer on EmptyCommand: 'command' must be a non-empty array of strings, program first (e.g. stdioCommand("./dist/mcp-server.js")), got array []`,
    ],
    [
      "FarPort",
      { name: "far", tools: [], port: 70000 },
      "port",
      "@McpServer on FarPort: port must be an integer 0-65535 (0 = ephemeral), got number 70000",
    ],
    [
      "NumberEnv",
      { name: "env", tools: [], transport: "stdio", command: ["node", "x.js"], env: { A: 1 } as never },
      "env",
      "@McpServer on NumberEnv: 'env.A' must be a string, got number",
    ],
    [
      "BadTool",
      { name: "t", tools: [class Plain {}] as never },
      "tools",
      "@McpServer on BadTool: tools[0] (Plain) is not a @Tool class or a Tool object",
    ],
    [
      "BadProvider",
      { name: "p", tools: [], providers: [{ provide: "X" }] as never },
      "providers",
      `@McpServer on BadProvider: providers[0] (object {"provide":"X"}) is not a class or { provide, useClass | useValue | useFactory }`,
    ],
    [
      "Typo",
      { name: "y", tools: [], provider: [] } as never,
      "provider",
      "@McpServer on Typo: unknown option 'provider'. Accepted options: name, imports, tools, resources, prompts, providers, remotes, transport, command, env, timeoutMs, approvals, autoAllow, guard, auditPath, auth, port, tasks, results, skills",
    ],
  ];
  for (const [className, options, member, message] of cases) {
    it(`${className}: names the class, '${member}' and what is accepted, with no chain of wrapped errors`, async () => {
      const err = await badModule(className, options);
      expect(err).toBeInstanceOf(DefinitionError);
      expect(err).toMatchObject({ message, key: member });
      expect(err.message).not.toMatch(/serveRegistry|LoopbackMcpTransport|could not start|OptionsError/);
      expect(err.cause).toBeUndefined();
    });
  }
});

describe("build takes the checked plan and checks nothing again", () => {
  it("a tool whose qualified name scan approved is served as scan named it (the public serveRegistry refuses the same tool)", async () => {
    @McpServer({ name: "once", tools: [] })
    class Once {}
    const plan = scanModule(Once, { container: container.createChildContainer(), ctx: new RunContext() });
    // Planted after scan: a tool whose qualified name is over 64 characters, which no second check may see.
    const long = "t".repeat(70);
    const planted: ModulePlan = {
      ...plan,
      tools: [{ tool: echo(long), perCall: null }],
      qualifiedNames: new Map([[long, `mcp__once__${long}`]]),
    };
    await built(planted, (b) => {
      // Beside the module's read_result (result budgets are on by default).
      expect(b.spec?.toolNames).toEqual(["mcp__once__read_result", `mcp__once__${long}`]);
    });
    await expect(serveRegistry([echo(long)], { name: "once", ctx: new RunContext() })).rejects.toThrow(
      expect.objectContaining({ code: "mcp_name" }),
    );
  });

  it("the server name is checked when @McpServer is applied, not again when served", async () => {
    @McpServer({ name: "named", tools: [] })
    class Named {}
    const plan = scanModule(Named, { container: container.createChildContainer(), ctx: new RunContext() });
    const planted: ModulePlan = { ...plan, meta: { ...plan.meta, name: "two__parts" } };
    await built(planted, (b) => {
      expect(Object.keys(b.spec!.configDocument().mcpServers)).toEqual(["two__parts"]);
    });
    await expect(serveRegistry([], { name: "two__parts", ctx: new RunContext() })).rejects.toThrow(
      expect.objectContaining({ code: "mcp_name" }),
    );
  });

  it("the approval server takes the module's policy as checked at decoration (new ApprovalServer refuses the same list)", async () => {
    const ASKER = Symbol.for("test:checked-once:asker");
    @McpServer({ name: "gated", tools: [], approvals: ASKER, providers: [{ provide: ASKER, useValue: approving }] })
    class Gated {}
    const plan = scanModule(Gated, { container: container.createChildContainer(), ctx: new RunContext() });
    const planted: ModulePlan = { ...plan, meta: { ...plan.meta, autoAllow: ["Read", ""] } };
    await built(planted, (b) => {
      expect([...b.approvals!.autoAllow]).toEqual(["Read", ""]);
    });
    const { ApprovalServer } = await import("../../src/mcp/index.js");
    expect(() => new ApprovalServer({ asker: approving, autoAllow: ["Read", ""] })).toThrow(
      "ApprovalServer: autoAllow entries must be non-empty tool names",
    );
  });
});
