/**
 * @module test/agentkit-cli/approve-web.test
 * The `agentkit` command with a person in the loop, end to end: the real
 * claude binary (against a local fake Messages API) asks permission, the
 * question appears on the inbox page in Chromium, and a click decides it.
 * `agentkit approve --web -- claude -p ...`: Approve runs the tool body, a
 * second run's Reject stops it, the exit code is relayed, the token never
 * reaches argv. `agentkit serve <module> --approve web`: the module's
 * approval prompts go to the page instead of its own Asker. Needs `npm run build`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../askers/inbox-kit.js";
import { ArgvWatch } from "../cli/kit/argv-watch.js";
import { EngineFixture } from "../cli/kit/engine-fixture.js";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { CLAUDE_BIN, E2E_TIMEOUT_MS, Hermetic } from "../cli/kit/hermetic.js";
import { AGENTKIT, FIXTURES, killGroup, requireBuild, runAgentkit, ServeProcess } from "./agentkit-process.js";
import { until } from "../helpers/wait.js";

let browser: Browser;
beforeAll(async () => {
  requireBuild();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A spawned `agentkit approve ...`, its output collected. */
class ApproveRun {
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;
  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (this.stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.once("close", (code) => resolve(code)));
  }

  static start(args: readonly string[], env: Record<string, string>, cwd: string): ApproveRun {
    return new ApproveRun(
      spawn(process.execPath, [AGENTKIT, "approve", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true }),
    );
  }

  async loginUrl(timeoutMs = 20_000): Promise<string> {
    const pattern = /in your browser: (http:\/\/127\.0\.0\.1:\d+\/\S+)/;
    await until(
      () => pattern.test(this.stderr),
      () => `the login URL on stderr:\n${this.stderr}\n${this.stdout}`,
      timeoutMs,
    );
    return pattern.exec(this.stderr)![1]!;
  }

  /** The claude stream-json `result` event. */
  result(): Record<string, unknown> {
    const line = this.stdout.split("\n").find((l) => l.includes('"type":"result"'));
    if (!line) throw new Error(`no result event in claude's output:\n${this.stdout}\n${this.stderr}`);
    return JSON.parse(line) as Record<string, unknown>;
  }
}

/** Log a fresh browser context in and return its page (closed by the caller). */
async function inboxPage(loginUrl: string): Promise<Page> {
  const context = await browser.newContext();
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  await page.goto(loginUrl);
  return page;
}

const script = () => [{ toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] }, { text: "done" }];

describe("agentkit approve --web -- claude -p ...", () => {
  it(
    "Approve on the page runs the tool body; a second run's Reject stops it; the exit code is relayed; the token stays out of argv",
    async () => {
      await using h = Hermetic.create();
      await using engine = await EngineFixture.start({ check: (n) => `check ${n}: PASSED` });
      const engineConfig = join(h.root, "engine.json");
      writeFileSync(engineConfig, engine.mcpConfig(), { mode: 0o600 });
      const claude = [
        CLAUDE_BIN,
        "-p",
        "check lint",
        "--output-format",
        "stream-json",
        "--verbose",
        "--mcp-config",
        engineConfig,
        "--tools",
        "",
      ];
      const env = { ...h.claudeEnv("") };

      await using api = await FakeAnthropic.start(script());
      const watch = ArgvWatch.start(h.home);
      let token = "";
      const first = ApproveRun.start(["--web", "--timeout-ms", "60000", "--", ...claude], { ...env, ANTHROPIC_BASE_URL: api.url }, h.cwd);
      try {
        const page = await inboxPage(await first.loginUrl());
        const art = page.getByRole("article", { name: "mcp__engine__run_check" });
        expect(await art.locator("pre").textContent()).toContain('"name": "lint"');
        expect(await art.locator(".from").textContent()).toBe("claude");
        // While the question waits, claude is running: its argv names the approval config file, which holds the token.
        const argv = [...watch.seen.values()].flatMap((p) => [...p.argvs]).find((a) => a.includes("--permission-prompt-tool"));
        expect(argv).toContain("--permission-prompt-tool mcp__agentkit_approvals__approve --mcp-config ");
        const configPath = /--permission-prompt-tool \S+ --mcp-config (\S+)/.exec(argv!)![1]!;
        token = /Bearer ([^"]+)/.exec(readFileSync(configPath, "utf8"))![1]!;
        await art.getByRole("button", { name: "Approve", exact: true }).click();
        expect(await first.exited).toBe(0);
        await page.context().close();
      } finally {
        await killGroup(first.child);
      }
      expect(engine.calls).toEqual([{ name: "run_check", arguments: { name: "lint" } }]);
      expect(first.result()).toMatchObject({ subtype: "success", result: "done", permission_denials: [] });
      expect(first.stderr).toMatch(/claude exited 0; 1 permission prompt\(s\) decided/);
      const argvs = [...watch.stop().values()].flatMap((p) => [...p.argvs]);
      expect(token.length).toBeGreaterThan(20);
      expect(argvs.filter((a) => a.includes(token))).toEqual([]);
      expect(first.stdout + first.stderr).not.toContain(token);

      await using api2 = await FakeAnthropic.start(script());
      const second = ApproveRun.start(["--web", "--", ...claude], { ...env, ANTHROPIC_BASE_URL: api2.url }, h.cwd);
      try {
        const page = await inboxPage(await second.loginUrl());
        const art = page.getByRole("article", { name: "mcp__engine__run_check" });
        await art.getByRole("button", { name: "Reject", exact: true }).click();
        await art.getByLabel("Note").fill("not today");
        await art.getByRole("button", { name: "Confirm rejection" }).click();
        expect(await second.exited).toBe(0);
        await page.context().close();
      } finally {
        await killGroup(second.child);
      }
      expect(engine.calls).toHaveLength(1);
      expect(second.result()).toMatchObject({ permission_denials: [expect.objectContaining({ tool_name: "mcp__engine__run_check" })] });
      expect(api2.toolResults()).toMatchObject([{ type: "tool_result", is_error: true, content: expect.stringContaining("not today") }]);
    },
    E2E_TIMEOUT_MS,
  );

  it("relays the command's exit code, and refuses a command line that names no answerer or no command", async () => {
    const seven = await runAgentkit(["approve", "--web", "--", "sh", "-c", "exit 7"]);
    expect(seven.code).toBe(7);
    expect(seven.stderr).toMatch(/one-time link/);
    const both = await runAgentkit(["approve", "--web", "--tty", "--", "true"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--web (a page in the browser) or --tty (this terminal), exactly one");
    const none = await runAgentkit(["approve", "--web"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("give the claude command after '--'");
    const tty = await runAgentkit(["approve", "--tty", "--", "true"]);
    expect(tty.code).toBe(1);
    expect(tty.stderr).toMatch(/not a TTY.*ApprovalInbox/);
    const bypass = await runAgentkit(["approve", "--web", "--", "claude", "-p", "x", "--permission-mode", "bypassPermissions"]);
    expect(bypass.code).toBe(2);
    expect(bypass.stderr).toContain("--permission-mode bypassPermissions, which settles every prompt without asking");
    const own = await runAgentkit(["approve", "--web", "--", "claude", "-p", "x", "--permission-prompt-tool=stdio"]);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain("adds its own --permission-prompt-tool");
    const missing = await runAgentkit(["approve", "--web", "--", "/nonexistent/claude", "-p", "x"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("could not run '/nonexistent/claude'");
  });
});

describe("agentkit serve <module> --approve web", () => {
  it(
    "the module's approval prompts from a real claude run go to the page instead of its own Asker; Approve runs the tool",
    async () => {
      await using h = Hermetic.create();
      const deploys = join(h.root, "deploys.txt");
      await using serve = await ServeProcess.start([join(FIXTURES, "inbox-module.mjs"), "--approve", "web", "--timeout-ms", "60000"], {
        env: { AGENTKIT_TEST_DEPLOYS: deploys },
      });
      await expect.poll(() => serve.stderr, { timeout: 10_000 }).toMatch(/log in to the approval inbox with: http:\S+/);
      const login = /log in to the approval inbox with: (http:\S+)/.exec(serve.stderr)?.[1];
      expect(serve.stderr.match(/login#code=/g)).toHaveLength(1);
      expect(serve.stdout).not.toMatch(/code=/);
      const prompt = /--permission-prompt-tool (\S+)/.exec(serve.stdout)?.[1];
      expect(prompt).toBe("mcp__agentkit_approvals__approve");
      await using api = await FakeAnthropic.start([
        { toolUses: [{ name: "mcp__ops__deploy", input: { target: "staging" } }] },
        { text: "deployed" },
      ]);
      const claude = spawn(
        CLAUDE_BIN,
        [
          "-p",
          "deploy",
          "--output-format",
          "stream-json",
          "--verbose",
          "--mcp-config",
          serve.configPath,
          "--strict-mcp-config",
          "--permission-prompt-tool",
          prompt!,
          "--setting-sources",
          "",
          "--tools",
          "",
        ],
        {
          cwd: h.cwd,
          env: h.claudeEnv(api.url),
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        },
      );
      let out = "";
      claude.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
      const exited = new Promise<number | null>((r) => claude.once("close", (c) => r(c)));
      try {
        const page = await inboxPage(login!);
        const art = page.getByRole("article", { name: "mcp__ops__deploy" });
        expect(await art.locator(".from").textContent()).toBe("InboxModule");
        await page.getByLabel("Your name", { exact: false }).fill("release-manager");
        await art.getByRole("button", { name: "Approve", exact: true }).click();
        expect(await exited).toBe(0);
        await expect.poll(() => page.locator("#decisions tbody tr").first().textContent()).toContain("release-manager");
        await page.context().close();
      } finally {
        await killGroup(claude);
      }
      expect(existsSync(deploys) ? readFileSync(deploys, "utf8") : "").toBe("staging\n");
      expect(out).toContain('"permission_denials":[]');
      expect((await serve.stop()).code).toBe(0);
    },
    E2E_TIMEOUT_MS,
  );
});
