/**
 * @module test/cli/served-e2e.test
 * The seed's claim, made true: the Claude CLI (and Codex) accept what
 * serveRegistry / ApprovalServer hand them, connect, and run the tool body
 * back in this process.
 */
import "reflect-metadata";
import { IsString } from "class-validator";
import { container, injectable } from "tsyringe";
import { describe, expect, it } from "vitest";
import { Agent, Tool, ToolRegistry, type Asker, type Decision, type RunContext } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, approvalGuard, serveRegistry } from "../../src/mcp/index.js";
import { mergeCliOptions, type ClaudeCliOptions } from "../../src/cli/index.js";
import { hermeticClaude, hermeticCodex } from "./kit/cognitions.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { FakeOpenAI } from "./kit/fake-openai.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";

@injectable()
class CheckService {
  readonly seen: string[] = [];
  verdict(name: string): string {
    this.seen.push(name);
    return `check ${name}: PASSED (CheckService)`;
  }
}

class RunCheckInput {
  @IsString() name!: string;
}

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  constructor(private readonly checks: CheckService) {}
  run(input: RunCheckInput, _ctx: RunContext): string {
    return this.checks.verdict(input.name);
  }
}

class DeployInput {
  @IsString() env!: string;
}

@Tool({ description: "Deploy to the named environment.", input: DeployInput, requiresApproval: true })
class Deploy {
  constructor(private readonly checks: CheckService) {}
  run(input: DeployInput): string {
    this.checks.seen.push(`deploy:${input.env}`);
    return `deployed to ${input.env}`;
  }
}

function registry(): { registry: ToolRegistry; checks: CheckService } {
  const c = container.createChildContainer();
  const checks = new CheckService();
  c.registerInstance(CheckService, checks);
  return { registry: ToolRegistry.fromTools([RunCheck, Deploy], { container: c }), checks };
}

const asker = (decision: Decision): Asker & { asked: number } => {
  const a = { asked: 0, ask: async () => (a.asked++, decision) };
  return a;
};

describe("Claude CLI + serveRegistry / ApprovalServer (real binary)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("mcp__engine__run_check reaches the tool body with its injected dependency; the result reaches the fake", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const { registry: reg, checks } = registry();
    await using spec = await serveRegistry(reg, { name: "engine", ctx });
    await spec.start();
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const cognition = hermeticClaude(h, api, { allowedTools: spec.autoApprove, ...spec.cliOptions({ builtinTools: false }) });
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(checks.seen).toEqual(["lint"]);
    expect(spec.callsSeen).toBe(1);
    expect(api.toolResults()).toMatchObject([
      { type: "tool_result", content: [{ type: "text", text: "check lint: PASSED (CheckService)" }] },
    ]);
    expect(result.output).toBe("lint passed");
    // deploy requires approval: it is offered, but not pre-allowed (read_result, served by default, is read-only)
    expect(spec.autoApprove).toEqual(["mcp__engine__read_result", "mcp__engine__run_check"]);
    expect(api.messageRequests[0]!.tools!.map((t) => t.name)).toEqual(
      expect.arrayContaining(["mcp__engine__run_check", "mcp__engine__deploy"]),
    );
  });

  it.each([
    { kind: "approve", expectSeen: ["lint"], allowed: true },
    { kind: "reject", expectSeen: [], allowed: false },
    { kind: "modify", expectSeen: ["typecheck"], allowed: true },
  ] as const)("ApprovalServer with no allowedTools: $kind is honoured by the CLI", async ({ kind, expectSeen, allowed }) => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const { registry: reg, checks } = registry();
    await using spec = await serveRegistry(reg, { name: "engine", ctx });
    await spec.start();
    const reviewer = asker({
      kind,
      actor: "ops",
      note: kind === "reject" ? "not today" : undefined,
      value: kind === "modify" ? { name: "typecheck" } : undefined,
    });
    await using approvals = new ApprovalServer({ asker: reviewer, ctx });
    await approvals.start();
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "finished" },
    ]);
    const cognition = hermeticClaude(
      h,
      api,
      mergeCliOptions<Partial<ClaudeCliOptions>>(spec.cliOptions({ builtinTools: false }), approvals.cliOptions()),
    );
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(reviewer.asked).toBe(1);
    expect(checks.seen).toEqual(expectSeen);
    expect(approvals.decisions).toMatchObject([
      { tool: "mcp__engine__run_check", arguments: { name: "lint" }, allowed, source: "asker", asked: true },
    ]);
    expect(spec.callsSeen).toBe(allowed ? 1 : 0);
    const [toolResult] = api.toolResults();
    if (allowed) {
      expect(toolResult).toMatchObject({ content: [{ type: "text", text: `check ${expectSeen[0]}: PASSED (CheckService)` }] });
      expect(result.details?.permissionDenials).toEqual([]);
    } else {
      expect(toolResult).toMatchObject({ is_error: true });
      expect(JSON.stringify(toolResult)).toContain("not today");
      expect(result.details?.permissionDenials).toMatchObject([{ toolName: "mcp__engine__run_check" }]);
    }
  });
});

describe("Codex CLI + serveRegistry via asCodexMcp (real binary)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("the tool body runs and its result reaches the fake (spec.codexOptions())", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const { registry: reg, checks } = registry();
    await using spec = await serveRegistry(reg, { name: "engine", ctx });
    await spec.start();
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "run_check", arguments: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const result = await new Agent({ name: "dev", cognition: hermeticCodex(h, api, spec.codexOptions()) }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(checks.seen).toEqual(["lint"]);
    expect(spec.callsSeen).toBe(1);
    expect(
      api
        .functionOutputs()
        .map((o) => o.text)
        .join("\n"),
    ).toContain("check lint: PASSED (CheckService)");
    expect(result.output).toBe("lint passed");
  });

  it("with the server-side guard on, a requiresApproval tool is refused by the Asker and the refusal reaches the fake", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const { registry: reg, checks } = registry();
    const reviewer = asker({ kind: "reject", actor: "ops", note: "change freeze" });
    const guard = approvalGuard({ asker: reviewer });
    await using spec = await serveRegistry(reg, { name: "engine", ctx, guard });
    await spec.start();
    expect(spec.guarded).toBe(true);
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "deploy", arguments: { env: "prod" } }] },
      { text: "deploy was refused" },
    ]);
    const result = await new Agent({ name: "dev", cognition: hermeticCodex(h, api, spec.codexOptions()) }).run("deploy to prod", ctx);
    expect(result.error).toBeUndefined();
    expect(reviewer.asked).toBe(1);
    expect(checks.seen).toEqual([]);
    expect(guard.decisions).toMatchObject([{ tool: "mcp__engine__deploy", allowed: false, source: "asker" }]);
    expect(
      api
        .functionOutputs()
        .map((o) => o.text)
        .join("\n"),
    ).toContain("tool 'deploy' was not run: rejected by ops: change freeze");
    expect(result.toolCalls).toMatchObject([{ name: "mcp__engine__deploy", ok: false }]);
  });
});
