/**
 * @module test/mcp-di/bootstrap-more
 * bootstrap(): the guard's audit through a module (decisions, gate.check,
 * JSONL, modify), codexOptions, `await using`, every provider form, and the
 * per-call RunContext scope (a fresh context per call, cancellation through it).
 */
import "reflect-metadata";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { container, inject, injectable } from "tsyringe";
import { IsString } from "class-validator";
import { afterAll, describe, expect, it } from "vitest";
import { RunContext, Tool, type Asker, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { MCPClient, McpServer, StreamableHttpServer, bootstrap, type McpApp } from "../../src/mcp/index.js";
import { until } from "../helpers/wait.js";

class TargetInput {
  @IsString() target!: string;
}

const bodyRuns: string[] = [];
@Tool({ description: "Deploy to a target.", input: TargetInput, requiresApproval: true, caps: ["egress"] })
class Deploy {
  run(input: TargetInput): string {
    bodyRuns.push(input.target);
    return `deployed to ${input.target}`;
  }
}

const ASKER = Symbol.for("test:more:asker");
const dir = mkdtempSync(join(tmpdir(), "agentkit-di-audit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function text(res: { content: Array<{ type: string; text?: string }> }): string {
  return res.content.map((b) => b.text ?? `[${b.type}]`).join("");
}
async function connect(app: McpApp): Promise<MCPClient> {
  return MCPClient.start(new StreamableHttpServer({ url: app.spec!.url!, headers: app.spec!.authHeaders }));
}

describe("the guard's audit through a module", () => {
  const auditPath = join(dir, "audit.jsonl");
  @McpServer({ name: "audited", tools: [Deploy], approvals: ASKER, guard: "asker", auditPath })
  class AuditedModule {}

  it("records each decision (memory, gate.check on ctx, JSONL) and runs a modify with the edited arguments", async () => {
    const answers: Decision[] = [
      { kind: "modify", actor: "ops", value: { target: "staging" } },
      { kind: "reject", actor: "ops", note: "frozen" },
    ];
    const asker: Asker = { ask: async () => answers.shift()! };
    const parent = container.createChildContainer();
    parent.register(ASKER, { useValue: asker });
    const ctx = makeTestCtx();
    await using app = await bootstrap(AuditedModule, { container: parent, ctx });
    await using client = await connect(app);
    bodyRuns.length = 0;
    expect(text(await client.callTool("deploy", { target: "prod" }))).toBe("deployed to staging");
    const refused = await client.callTool("deploy", { target: "prod" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe("tool 'deploy' was not run: rejected by ops: frozen");
    expect(bodyRuns).toEqual(["staging"]);
    expect(app.guard!.decisions).toMatchObject([
      { tool: "mcp__audited__deploy", allowed: true, source: "asker", asked: true, actor: "ops" },
      { tool: "mcp__audited__deploy", allowed: false, source: "asker", asked: true, actor: "ops", reason: "frozen" },
    ]);
    const events = ctx.eventsNamed("gate.check");
    expect(events).toHaveLength(2);
    for (const e of events) expect(e.data).not.toHaveProperty("arguments");
    const lines = readFileSync(auditPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.tool, l.allowed, l.source])).toEqual([
      ["mcp__audited__deploy", true, "asker"],
      ["mcp__audited__deploy", false, "asker"],
    ]);
  });

  it("codexOptions() lets Codex send the guarded tool (the guard asks the human) and equals the spec's", async () => {
    const parent = container.createChildContainer();
    parent.register(ASKER, { useValue: { ask: async () => ({ kind: "approve" }) } });
    await using app = await bootstrap(AuditedModule, { container: parent });
    expect(app.spec!.guarded).toBe(true);
    const codex = app.codexOptions();
    expect(codex).toEqual(app.spec!.codexOptions());
    expect(codex.config["mcp_servers.audited.tools.deploy.approval_mode"]).toBe("approve");
    expect(JSON.stringify(codex.config)).not.toContain(app.spec!.authHeaders.Authorization!.slice(7));
  });

  it("auditPath without approvals is refused when applied", () => {
    expect(() => {
      @McpServer({ name: "x", tools: [], auditPath: "/tmp/x.jsonl" })
      class NoAsker {}
      return NoAsker;
    }).toThrow("@McpServer on NoAsker: 'auditPath' records approval decisions; it needs 'approvals' to name an Asker provider");
  });
});

describe("await using releases the app", () => {
  @McpServer({ name: "brief", tools: [Deploy] })
  class BriefModule {}

  it("the port is free again after the block", async () => {
    let port = 0;
    {
      await using app = await bootstrap(BriefModule, { container: container.createChildContainer() });
      port = Number(new URL(app.spec!.url!).port);
    }
    const probe = createServer();
    await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(port, "127.0.0.1", resolve));
    await new Promise((r) => probe.close(r));
  });
});

describe("every provider form", () => {
  const GREETING = Symbol.for("test:more:greeting");
  const STAMP = Symbol.for("test:more:stamp");
  class Clock {
    now(): string {
      throw new Error("Clock is an interface here; provide an implementation");
    }
  }
  class FixedClock extends Clock {
    override now() {
      return "12:00";
    }
  }

  @Tool({ description: "Greet with the time.", sideEffecting: false })
  class Greet {
    constructor(
      @inject(GREETING) private readonly greeting: string,
      @inject(Clock) private readonly clock: Clock,
      @inject(STAMP) private readonly stamp: string,
    ) {}
    run(): string {
      return `${this.greeting} at ${this.clock.now()} (${this.stamp})`;
    }
  }

  @McpServer({
    name: "forms",
    tools: [Greet],
    providers: [
      { provide: GREETING, useValue: "hello" },
      { provide: Clock, useClass: FixedClock },
      { provide: STAMP, useFactory: (c) => `built by ${c.resolve(Clock).constructor.name}` },
    ],
  })
  class FormsModule {}

  it("useValue, useClass and useFactory all reach a @Tool class", async () => {
    await using app = await bootstrap(FormsModule, { container: container.createChildContainer() });
    await using client = await connect(app);
    expect(text(await client.callTool("greet", {}))).toBe("hello at 12:00 (built by FixedClock)");
  });
});

describe("the per-call RunContext scope", () => {
  @injectable()
  class Counter {
    n = 0;
  }

  let release: (() => void) | undefined;
  @Tool({
    description: "Report this call's context; optionally wait for cancellation.",
    sideEffecting: false,
    input: { type: "object", properties: { wait: { type: "boolean" } }, additionalProperties: false },
  })
  class Probe {
    constructor(
      private readonly counter: Counter,
      private readonly call: RunContext,
    ) {}
    async run(input: { wait?: boolean }): Promise<string> {
      this.counter.n++;
      if (input.wait) {
        await new Promise<void>((resolve) => {
          release = resolve;
          this.call.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        return `aborted=${this.call.signal.aborted}`;
      }
      const caller = this.call.caller;
      return JSON.stringify({ requestId: caller?.kind === "loopback" ? caller.requestId : caller?.kind, calls: this.counter.n });
    }
  }

  @McpServer({ name: "scoped", tools: [Probe], providers: [Counter] })
  class ScopedModule {}

  it("each call gets its own context (its own request id) while singletons are shared", async () => {
    await using app = await bootstrap(ScopedModule, { container: container.createChildContainer() });
    await using client = await connect(app);
    const a = JSON.parse(text(await client.callTool("probe", {})));
    const b = JSON.parse(text(await client.callTool("probe", {})));
    expect(a.requestId).not.toBe(b.requestId);
    expect([a.calls, b.calls]).toEqual([1, 2]);
  });

  it("cancelling the app's run aborts the injected context of a call in flight", async () => {
    const ctx = new RunContext();
    await using app = await bootstrap(ScopedModule, { container: container.createChildContainer(), ctx });
    await using client = await connect(app);
    release = undefined;
    const pending = client.callTool("probe", { wait: true });
    await until(() => release !== undefined, "the call to start");
    ctx.cancel();
    const res = await pending;
    expect(res.isError).toBe(true);
    expect(text(res)).toBe("the run was cancelled while 'probe' was running");
  });
});
