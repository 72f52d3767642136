/**
 * @module test/models/quickstart.test
 * `npm start` (build/samples/quickstart.js) with a model API key set runs
 * part 1 on the real provider class and says which — here against the fakes
 * (the base URL pointed at them), so no real API is called. Without a key it
 * stays on FakeLLM (test/build/built-package.test.ts checks that run).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeAnthropic, type AnthropicRequest } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { ROOT } from "../mcp-client/support.js";

function quickstart(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = join(ROOT, "build/samples/quickstart.js");
  if (!existsSync(file)) throw new Error("build/samples/quickstart.js is missing: run `npm run build` first (npm test does)");
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [file],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 150_000, killSignal: "SIGKILL", maxBuffer: 8 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr }),
    ),
  );
}

const answered = (body: AnthropicRequest) =>
  body.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"));

describe("npm start with a model key", () => {
  it("ANTHROPIC_API_KEY: AnthropicLLM drives part 1 and the run says so; OPENAI_API_KEY: OpenAILLM", async () => {
    await using anthropic = await FakeAnthropic.start((body) =>
      answered(body) ? { text: "lint passed." } : { toolUses: [{ id: "toolu_q", name: "run_check", input: { name: "lint" } }] },
    );
    await using openai = await FakeOpenAI.start([
      { functionCalls: [{ callId: "call_q", name: "run_check", arguments: { name: "lint" } }] },
      { text: "lint passed." },
    ]);
    const [a, o] = await Promise.all([
      quickstart({ ANTHROPIC_API_KEY: "sk-fake", ANTHROPIC_BASE_URL: anthropic.url, AGENTKIT_MODEL: "claude-test" }),
      quickstart({ OPENAI_API_KEY: "sk-fake", OPENAI_BASE_URL: `${openai.url}/v1`, AGENTKIT_MODEL: "gpt-test" }),
    ]);
    expect(a.stdout, a.stderr).toContain("model: AnthropicLLM, model claude-test (ANTHROPIC_API_KEY is set)");
    expect(a.stdout).toContain('run_check({"name":"lint"}) -> lint:lax:ok');
    expect(a.stdout).toContain("output: lint passed. | stopReason: complete");
    expect(anthropic.messageRequests.map((r) => r.model)).toEqual(["claude-test", "claude-test"]);
    expect(o.stdout, o.stderr).toContain("model: OpenAILLM, model gpt-test (OPENAI_API_KEY is set)");
    expect(o.stdout).toContain("output: lint passed. | stopReason: complete");
    expect(openai.functionOutputs()).toEqual([{ callId: "call_q", text: "lint:lax:ok" }]);
    expect([a.code, o.code]).toEqual([0, 0]);
  }, 180_000);
});
