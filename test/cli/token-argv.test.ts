/**
 * @module test/cli/token-argv.test
 * Issue 14, defect 2: a bearer token must never be in any process's argv
 * (`ps` and `/proc/<pid>/cmdline` are world-readable). The real `claude`
 * binary runs a served tool from `spec.cliOptions()` + `approvals.cliOptions()`
 * and from `McpApp.cliOptions()`, and the real `codex` one from
 * `spec.codexOptions()`; meanwhile the argv of every process each CLI started
 * is sampled every 20 ms, and no token appears in any of them.
 */
import "reflect-metadata";
import { IsString } from "class-validator";
import { container } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, Tool, ToolRegistry, type Asker, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, McpServer, bootstrap, serveRegistry, type McpApp } from "../../src/mcp/index.js";
import { codexTokenEnvVar } from "../../src/wire/codex-mcp.js";
import { mergeCliOptions, type ClaudeCliOptions } from "../../src/cli/index.js";
import { ArgvWatch } from "./kit/argv-watch.js";
import { hermeticClaude, hermeticCodex } from "./kit/cognitions.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { FakeOpenAI } from "./kit/fake-openai.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";

/** What the tool body did: the observable side effect of a call that really ran. */
const ran: string[] = [];

class RunCheckInput {
  @IsString() name!: string;
}

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  run(input: RunCheckInput): string {
    ran.push(input.name);
    return `check ${input.name}: PASSED`;
  }
}

const APPROVER = Symbol.for("test:token-argv:asker");

@McpServer({ name: "engine", tools: [RunCheck], approvals: APPROVER })
class EngineModule {}

const approving = (): Asker & { asked: number } => {
  const a = { asked: 0, ask: async (): Promise<Decision> => (a.asked++, { kind: "approve", actor: "ops" }) };
  return a;
};

const tokenOf = (headers: Readonly<Record<string, string>>): string => {
  const token = /^Bearer (.+)$/.exec(headers.Authorization ?? "")?.[1];
  if (!token) throw new Error("no bearer token in the headers");
  return token;
};

/** The watch saw the CLI itself (so it watched the right tree), and no argv holds any token. */
function expectNoToken(watch: ArgvWatch, cliArg: string, tokens: readonly string[]): void {
  const argvs = watch.argvs();
  expect(watch.samples).toBeGreaterThan(5);
  expect(argvs.some((a) => a.includes(cliArg))).toBe(true);
  for (const token of tokens) {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(argvs.filter((a) => a.includes(token))).toEqual([]);
  }
}

afterEach(() => {
  ran.length = 0;
});

describe("the Claude CLI's argv holds no bearer token (real binary)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("spec.cliOptions() merged with approvals.cliOptions(): the tool runs after the approval, and no token is in any argv", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    await using spec = await serveRegistry(ToolRegistry.fromTools([RunCheck], { container: container.createChildContainer() }), {
      name: "engine",
      ctx,
    });
    await spec.start();
    const reviewer = approving();
    await using approvals = await new ApprovalServer({ asker: reviewer, ctx }).start();
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const cognition = hermeticClaude(
      h,
      api,
      mergeCliOptions<Partial<ClaudeCliOptions>>(spec.cliOptions({ builtinTools: false }), approvals.cliOptions()),
    );
    const watch = ArgvWatch.start(h.home);
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx).finally(() => watch.stop());
    expect(result.error).toBeUndefined();
    expect(ran).toEqual(["lint"]);
    expect(reviewer.asked).toBe(1);
    expect(result.details?.mcpServers).toEqual(
      expect.arrayContaining([
        { name: "engine", status: "connected" },
        { name: "agentkit_approvals", status: "connected" },
      ]),
    );
    expect(result.output).toBe("lint passed");
    expectNoToken(watch, "--mcp-config", [tokenOf(spec.authHeaders), tokenOf(approvals.authHeaders)]);
  });

  it("McpApp.cliOptions() (registry + approvals from bootstrap): the tool runs, and no token is in any argv", async () => {
    await using h = Hermetic.create();
    const parent = container.createChildContainer();
    const reviewer = approving();
    parent.register(APPROVER, { useValue: reviewer });
    const app: McpApp = await bootstrap(EngineModule, { container: parent });
    try {
      await using api = await FakeAnthropic.start([
        { toolUses: [{ name: "mcp__engine__run_check", input: { name: "types" } }] },
        { text: "types passed" },
      ]);
      // No allowedTools: run_check is auto-approved by the module, so the CLI runs it without asking.
      const cognition = hermeticClaude(h, api, app.cliOptions({ builtinTools: false }));
      const watch = ArgvWatch.start(h.home);
      const result = await new Agent({ name: "dev", cognition }).run("check types", app.ctx).finally(() => watch.stop());
      expect(result.error).toBeUndefined();
      expect(ran).toEqual(["types"]);
      expect(result.output).toBe("types passed");
      expectNoToken(watch, "--mcp-config", [tokenOf(app.spec!.authHeaders), tokenOf(app.approvals!.authHeaders)]);
    } finally {
      await app.stop();
    }
  });
});

describe("the Codex CLI's argv holds no bearer token (real binary)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("spec.codexOptions(): the token goes by env var (in Codex's environ, never its argv), and the tool runs", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    await using spec = await serveRegistry(ToolRegistry.fromTools([RunCheck], { container: container.createChildContainer() }), {
      name: "engine",
      ctx,
    });
    await spec.start();
    const token = tokenOf(spec.authHeaders);
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "run_check", arguments: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const options = spec.codexOptions();
    expect(options.env).toEqual({ [codexTokenEnvVar("engine")]: token });
    const watch = ArgvWatch.start(h.home);
    const result = await new Agent({ name: "dev", cognition: hermeticCodex(h, api, options) })
      .run("check lint", ctx)
      .finally(() => watch.stop());
    expect(result.error).toBeUndefined();
    expect(ran).toEqual(["lint"]);
    expect(result.output).toBe("lint passed");
    expectNoToken(watch, "exec", [token]);
    // The route it does take: the variable the config names, in the environment of the codex process.
    const codex = [...watch.seen.values()].filter((p) => [...p.argvs].some((a) => a.includes(" exec ")));
    expect(codex.some((p) => p.environ.includes(`${codexTokenEnvVar("engine")}=${token}`))).toBe(true);
  });
});
