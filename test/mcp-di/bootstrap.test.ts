/** @module test/mcp-di/bootstrap.test */
import "reflect-metadata";
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { container, inject, injectable } from "tsyringe";
import { IsString } from "class-validator";
import { afterEach, describe, expect, it } from "vitest";
import {
  DefinitionError,
  RunContext,
  Tool,
  ToolRegistry,
  type Asker,
  type Decision,
  type MemorySource,
  type PromptTemplate,
  BootstrapError,
} from "../../src/index.js";
import {
  InjectMcpClient,
  InjectMcpPrompts,
  InjectMcpResources,
  InjectMcpTools,
  MCPClient,
  McpServer,
  StdioServer,
  StreamableHttpServer,
  bootstrap,
  remote,
  type McpApp,
  type ModuleClass,
} from "../../src/mcp/index.js";
import { pidsMatching, waitGone } from "../helpers/procs.js";
import { askerAnswering } from "../helpers/asker.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/servers/tools-stdio-server.mjs", import.meta.url));
const stdio = (...tools: string[]) => new StdioServer({ command: process.execPath, args: [FIXTURE, ...tools] });

@injectable()
class CheckService {
  calls = 0;
  verdict(name: string): string {
    this.calls++;
    return `${name}:ok`;
  }
}

class NameInput {
  @IsString() name!: string;
}
class TargetInput {
  @IsString() target!: string;
}

@Tool({ description: "Run the named check.", input: NameInput, sideEffecting: false })
class RunCheck {
  constructor(private readonly checks: CheckService) {}
  run(input: NameInput): string {
    return this.checks.verdict(input.name);
  }
}

let deployBodyRuns = 0;
@Tool({ description: "Deploy to a target.", input: TargetInput, requiresApproval: true, caps: ["egress"] })
class Deploy {
  run(input: TargetInput): string {
    deployBodyRuns++;
    return `deployed to ${input.target}`;
  }
}

@Tool({ description: "Say who is calling.", sideEffecting: false })
class WhoAmI {
  constructor(
    private readonly checks: CheckService,
    private readonly call: RunContext,
  ) {}
  run(): string {
    const caller = this.call.caller;
    return JSON.stringify({
      server: caller?.server,
      hasSession: caller?.kind === "loopback" && typeof caller.sessionId === "string",
      checksSeen: this.checks.calls,
    });
  }
}

const ASKER = Symbol.for("test:asker");
const apps: McpApp[] = [];
async function boot(module: ModuleClass, asker?: Asker): Promise<McpApp> {
  const parent = container.createChildContainer();
  if (asker) parent.register(ASKER, { useValue: asker });
  const app = await bootstrap(module, { container: parent });
  apps.push(app);
  return app;
}
afterEach(async () => {
  while (apps.length) await apps.pop()!.stop();
});

async function connect(app: McpApp): Promise<MCPClient> {
  return MCPClient.start(new StreamableHttpServer({ url: app.spec!.url!, headers: app.spec!.authHeaders }));
}
function text(res: { content: Array<{ type: string; text?: string }> }): string {
  return res.content.map((b) => b.text ?? `[${b.type}]`).join("");
}

describe("bootstrap(@McpServer module)", () => {
  @McpServer({ name: "engine", tools: [RunCheck, Deploy, WhoAmI], providers: [CheckService] })
  class EngineModule {}

  it("serves @Tool classes with their injected dependencies over a real socket", async () => {
    const app = await boot(EngineModule);
    // Result budgets are on by default: the module's read_result is served beside its own tools.
    expect(app.spec!.toolNames).toEqual([
      "mcp__engine__deploy",
      "mcp__engine__read_result",
      "mcp__engine__run_check",
      "mcp__engine__who_am_i",
    ]);
    await using client = await connect(app);
    expect((await client.listTools()).map((t) => t.name).sort()).toEqual(["deploy", "read_result", "run_check", "who_am_i"]);
    expect(text(await client.callTool("run_check", { name: "lint" }))).toBe("lint:ok");
    expect(app.container.resolve(CheckService).calls).toBe(1);
    const who = JSON.parse(text(await client.callTool("who_am_i", {})));
    // checksSeen 1: the per-call WhoAmI got the same CheckService singleton run_check used.
    // The package's client opens the served module on 2026-07-28, where a call has no session.
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(who).toEqual({ server: "engine", hasSession: false, checksSeen: 1 });
    const bad = await client.callTool("run_check", { name: "lint", verbose: true });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toBe("tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name']");
  });

  it("without a guard a requiresApproval tool is only declared, not enforced", async () => {
    const app = await boot(EngineModule);
    await using client = await connect(app);
    const before = deployBodyRuns;
    expect(text(await client.callTool("deploy", { target: "prod" }))).toBe("deployed to prod");
    expect(deployBodyRuns).toBe(before + 1);
    // read_result (served by default, reads only the caller's own results) needs no approval, so it is allowed too.
    expect(app.cliOptions()).toMatchObject({
      strictMcpConfig: true,
      allowedTools: ["mcp__engine__read_result", "mcp__engine__run_check", "mcp__engine__who_am_i"],
    });
    // A misspelt option is refused under the name the user called.
    expect(() => app.cliOptions({ builtInTools: false } as never)).toThrow(
      expect.objectContaining({
        name: "OptionsError",
        where: "McpApp.cliOptions",
        option: "builtInTools",
        message: expect.stringContaining("did you mean 'builtinTools'?"),
      }),
    );
  });

  it("two apps side by side share nothing; a module boots again after stop", async () => {
    const a = await boot(EngineModule);
    const b = await boot(EngineModule);
    expect(a.spec!.url).not.toBe(b.spec!.url);
    expect(a.container.resolve(CheckService)).not.toBe(b.container.resolve(CheckService));
    expect(container.isRegistered(CheckService)).toBe(false);
    await a.stop();
    await a.stop(); // idempotent
    const c = await boot(EngineModule);
    await using client = await connect(c);
    expect(text(await client.callTool("run_check", { name: "again" }))).toBe("again:ok");
  });
});

describe("the server-side approval guard", () => {
  @McpServer({ name: "guarded", tools: [RunCheck, Deploy], providers: [CheckService], approvals: ASKER, guard: "asker", timeoutMs: 300 })
  class GuardedModule {}

  it("asks the Asker before a requiresApproval tool runs, and never for the others", async () => {
    const asker = askerAnswering({ kind: "approve", actor: "ops" });
    const app = await boot(GuardedModule, asker);
    await using client = await connect(app);
    expect(text(await client.callTool("run_check", { name: "x" }))).toBe("x:ok");
    expect(asker.seen).toHaveLength(0);
    expect(text(await client.callTool("deploy", { target: "staging" }))).toBe("deployed to staging");
    expect(asker.seen).toHaveLength(1);
  });

  it("a denial is an isError result naming who refused and why; the body never runs", async () => {
    const asker = askerAnswering({ kind: "reject", actor: "ops-lead", note: "not on a Friday" });
    const app = await boot(GuardedModule, asker);
    await using client = await connect(app);
    const before = deployBodyRuns;
    const res = await client.callTool("deploy", { target: "prod" });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain("ops-lead");
    expect(text(res)).toContain("not on a Friday");
    expect(deployBodyRuns).toBe(before);
  });

  it("an Asker that never answers is denied at the module's deadline", async () => {
    const asker = askerAnswering(() => new Promise<Decision>(() => {}));
    const app = await boot(GuardedModule, asker);
    await using client = await connect(app);
    const before = deployBodyRuns;
    const res = await client.callTool("deploy", { target: "prod" });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain("0.3s");
    expect(deployBodyRuns).toBe(before);
  });

  it("boots an ApprovalServer beside the listener and wires both into cliOptions()", async () => {
    const app = await boot(GuardedModule, askerAnswering({ kind: "approve" }));
    const opts = app.cliOptions();
    expect(opts.mcpConfig).toEqual([app.spec!.configPath, app.approvals!.configPath]);
    const servers = opts.mcpConfig.flatMap((path) => Object.keys(JSON.parse(readFileSync(path, "utf8")).mcpServers as object));
    expect(servers.sort()).toEqual(["agentkit_approvals", "guarded"]);
    const tokens = [app.spec!.authHeaders.Authorization!, app.approvals!.authHeaders.Authorization!].map((h) => h.slice("Bearer ".length));
    for (const token of tokens) expect(JSON.stringify(opts)).not.toContain(token);
    expect(opts.permissionPromptTool).toBe("mcp__agentkit_approvals__approve");
    expect(opts.settingSources).toBe("");
    expect(app.approvals).not.toBeNull();
  });
});

describe("remote MCP servers as providers", () => {
  @injectable()
  class Consumer {
    constructor(
      @InjectMcpTools("kb") readonly tools: Array<{ name: string; run(a: Record<string, unknown>, c: RunContext): Promise<unknown> }>,
      @InjectMcpClient("kb") readonly client: MCPClient,
      @InjectMcpResources("kb") readonly resources: MemorySource,
      @InjectMcpPrompts("kb") readonly prompts: Record<string, PromptTemplate>,
      readonly registry: ToolRegistry,
    ) {}
  }

  @Tool({
    description: "Search the knowledge base through the injected remote tool.",
    input: { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false },
  })
  class KbSearch {
    constructor(
      @InjectMcpTools("kb") private readonly kb: Array<{ name: string; run(a: Record<string, unknown>, c: RunContext): Promise<unknown> }>,
    ) {}
    run(input: { q: string }, ctx: RunContext) {
      return this.kb.find((t) => t.name === "kb_search")!.run({ q: input.q }, ctx);
    }
  }

  @McpServer({ name: "front", tools: [KbSearch], providers: [Consumer], remotes: [remote("kb", stdio("search"), { prefix: "kb_" })] })
  class FrontModule {}

  it("injects a real stdio server's tools, client, resources and prompts, and closes it on stop", async () => {
    const app = await boot(FrontModule);
    const consumer = app.container.resolve(Consumer);
    expect(consumer.tools.map((t) => t.name)).toEqual(["kb_search"]);
    expect(await consumer.tools[0]!.run({ q: "milk" }, new RunContext())).toBe("search:milk");
    expect((await consumer.resources.query("notes", { k: 1 }))[0]!.content).toBe("remember the milk");
    expect(consumer.prompts.greet!.template).toBe("Hello, team.");
    expect(consumer.client).toBe(app.remotes.get("kb"));
    await using client = await connect(app);
    expect(text(await client.callTool("kb_search", { q: "eggs" }))).toBe("search:eggs");
    expect(pidsMatching(FIXTURE).length).toBeGreaterThan(0);
    await app.stop();
    expect(await waitGone(FIXTURE)).toEqual([]);
  });
});

describe("bootstrap errors", () => {
  it("a module without @McpServer", async () => {
    class Plain {}
    await expect(bootstrap(Plain)).rejects.toThrow("bootstrap(Plain): Plain is not decorated with @McpServer({ name, tools, ... })");
  });

  it("an unknown provider names the tool class and the missing dependency", async () => {
    class Unprovided {
      x = 1;
    }
    const TOKEN = Symbol.for("test:unprovided");
    @Tool({ description: "Needs a token nobody provides." })
    class NeedsToken {
      constructor(@inject(TOKEN) readonly dep: Unprovided) {}
      run() {
        return "never";
      }
    }
    @McpServer({ name: "broken", tools: [NeedsToken] })
    class BrokenModule {}
    const err = await bootstrap(BrokenModule, { container: container.createChildContainer() }).catch((e) => e);
    expect(err).toBeInstanceOf(BootstrapError);
    expect(err.code).toBe("bootstrap");
    expect(err.message).toContain("cannot build @Tool class NeedsToken");
    expect(err.message).toContain("test:unprovided");
    expect(err.message).toContain("providers");
  });

  it("a @Tool class missing run() is refused when decorated", () => {
    expect(() => {
      @Tool({ description: "No body." })
      class NoRun {}
      return NoRun;
    }).toThrow(new DefinitionError("NoRun", "run", "@Tool on NoRun: the class must define run(input, ctx)"));
  });

  it("two aliases whose tools collide are refused, and what was opened is closed", async () => {
    const tag = `collide-${process.pid}`;
    @McpServer({ name: "dup", tools: [], remotes: [remote("a", stdio("search", tag)), remote("b", stdio("search", tag))] })
    class DupModule {}
    const err = await bootstrap(DupModule, { container: container.createChildContainer() }).catch((e) => e);
    expect(err).toBeInstanceOf(BootstrapError);
    expect(err.message).toContain("remotes 'a' and 'b' both provide a tool named 'search'");
    expect(await waitGone(tag)).toEqual([]);
  });

  it("a remote that cannot start names the alias and the server", async () => {
    @McpServer({
      name: "dead",
      tools: [],
      remotes: [remote("ghost", new StdioServer({ command: process.execPath, args: ["-e", "process.exit(3)"] }))],
    })
    class DeadModule {}
    const err = await bootstrap(DeadModule, { container: container.createChildContainer() }).catch((e) => e);
    expect(err).toBeInstanceOf(BootstrapError);
    expect(err.message).toContain("remote 'ghost' (stdio:");
  });

  it("a busy port is reported in the caller's await", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      @McpServer({ name: "busy", tools: [RunCheck], providers: [CheckService], port })
      class BusyModule {}
      const err = await bootstrap(BusyModule, { container: container.createChildContainer() }).catch((e) => e);
      expect(err).toBeInstanceOf(BootstrapError);
      expect(err.message).toContain("EADDRINUSE");
      expect(err.message).toContain(String(port));
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it("options are checked when @McpServer is applied", () => {
    expect(() => {
      @McpServer({ name: "bad name", tools: [] })
      class M {}
      return M;
    }).toThrow(/@McpServer on M: 'name' must match/);
    expect(() => {
      @McpServer({ name: "ok", tools: [], guard: "asker" })
      class G {}
      return G;
    }).toThrow(`@McpServer on G: guard: "asker" needs 'approvals' to name an Asker provider`);
  });
});
