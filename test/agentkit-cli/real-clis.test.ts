/**
 * @module test/agentkit-cli/real-clis.test
 * An `agentkit serve` child verified with the real `claude` binary
 * (node_modules/.bin/claude, spawned directly) against the fake Anthropic API
 * of the CLI test kit, in a hermetic environment: the model asks for
 * `mcp__engine__run_check`, the CLI calls the served tool, and the text only
 * the tool body produces reaches the model. Once with Claude spawning
 * `agentkit serve --transport stdio` itself, once with the exact line
 * `agentkit serve` (http) printed for pasting. And the `--codex` lines with
 * the real `codex` binary: its env file sourced, its `-c` overrides verbatim.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tomlOverride } from "../../src/wire/toml.js";
import { FakeAnthropic, type AnthropicRequest } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { CLAUDE_BIN, CODEX_BIN, CODEX_HERMETIC_ARGS, Hermetic, codexFakeProvider } from "../cli/kit/hermetic.js";
import { pidsMatching } from "../helpers/procs.js";
import { AGENTKIT, MODULES, ServeProcess, killGroup, requireBuild } from "./agentkit-process.js";
import { until } from "../helpers/wait.js";

beforeAll(requireBuild);

const OPS = join(MODULES, "ops-module.js");

/** The model: call run_check once (if the CLI offers it), then answer. */
function script() {
  return [
    (body: AnthropicRequest) =>
      body.tools?.some((t) => t.name === "mcp__engine__run_check")
        ? { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] }
        : { text: `run_check was not offered; tools: ${(body.tools ?? []).map((t) => t.name).join(", ")}` },
    { text: "done" },
  ];
}

/** Run a real CLI binary in its own process group (ended afterwards, and after 90 s at the latest); resolves with its exit code and output. */
async function runCli(
  bin: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(bin, args, { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => void killGroup(child), 90_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (c) => resolve(c));
    });
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
    await killGroup(child);
  }
}

/** JSON lines of a CLI's stdout. */
function jsonLines<T = Record<string, unknown>>(stdout: string): T[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => JSON.parse(l) as T);
}

/** Run the real claude in `h` with `args` (after the hermetic print-mode flags); resolves with its stream-json events. */
async function claude(
  h: Hermetic,
  api: FakeAnthropic,
  args: readonly string[],
): Promise<{ code: number | null; events: Record<string, unknown>[]; stderr: string }> {
  const { code, stdout, stderr } = await runCli(
    CLAUDE_BIN,
    ["-p", "check lint", "--output-format", "stream-json", "--verbose", "--model", "fake-model", "--tools", "", ...args],
    {
      cwd: h.cwd,
      env: h.claudeEnv(api.url),
    },
  );
  return { code, events: jsonLines(stdout), stderr };
}

/** The text of every tool_result the CLI sent back to the model. */
function toolResultTexts(api: FakeAnthropic): string[] {
  return api.toolResults().map((r) => {
    const c = r.content;
    return typeof c === "string" ? c : (c as { text?: string }[]).map((b) => b.text ?? "").join("");
  });
}

function expectConnectedAndRan(run: Awaited<ReturnType<typeof claude>>, api: FakeAnthropic): void {
  const init = run.events.find((e) => e.type === "system" && e.subtype === "init") as
    { mcp_servers?: unknown; tools?: string[] } | undefined;
  expect(init, `no init event; stderr: ${run.stderr}`).toBeDefined();
  expect(init!.mcp_servers).toEqual([expect.objectContaining({ name: "engine", status: "connected" })]);
  expect(init!.tools).toEqual(expect.arrayContaining(["mcp__engine__run_check", "mcp__engine__deploy"]));
  // "lint:lax:ok" exists nowhere but in RunCheck.run's return value.
  expect(toolResultTexts(api)).toEqual(["lint:lax:ok"]);
  const result = run.events.find((e) => e.type === "result") as { is_error?: boolean; result?: string } | undefined;
  expect(result).toMatchObject({ is_error: false, result: "done" });
  expect(run.code).toBe(0);
}

describe("the real claude binary and agentkit serve", () => {
  it("spawns `agentkit serve --transport stdio` from --mcp-config, calls the tool, and the child exits with the CLI", async () => {
    await using h = Hermetic.create();
    await using api = await FakeAnthropic.start(script());
    // A --timeout-ms unique to this test makes its child findable by command line.
    const unique = String(600_000 + (process.pid % 100_000));
    const config = JSON.stringify({
      mcpServers: {
        engine: {
          type: "stdio",
          command: process.execPath,
          args: [AGENTKIT, "serve", OPS, "--transport", "stdio", "--timeout-ms", unique],
        },
      },
    });
    const run = await claude(h, api, [
      "--mcp-config",
      config,
      "--strict-mcp-config",
      "--setting-sources",
      "",
      "--allowedTools",
      "mcp__engine__run_check",
    ]);
    expectConnectedAndRan(run, api);
    const marker = `--transport stdio --timeout-ms ${unique}`;
    await until(
      () => pidsMatching(marker).length === 0,
      () => `the stdio server processes to exit (left: ${pidsMatching(marker).join(", ")})`,
      10_000,
    );
  });

  it("runs the exact Claude Code line `agentkit serve` printed, and the served tool body runs in the serve process", async () => {
    await using h = Hermetic.create();
    await using api = await FakeAnthropic.start(script());
    await using serve = await ServeProcess.start([OPS]);
    const line = /^ {2}claude (.+)$/m.exec(serve.stdout)![1]!;
    // The printed words need no shell quoting here (paths under the temp dir, tool names).
    expect(line).not.toMatch(/['"\\]/);
    const run = await claude(h, api, line.split(" "));
    expectConnectedAndRan(run, api);
    expect(await serve.stop()).toEqual({ code: 0, signal: null });
    expect(serve.stderr).toContain("agentkit serve: stopped 'engine' on SIGTERM after 1 call(s)");
  });
});

/** Split a printed shell line into words: bare words and '...' quoted ones (what shellQuote produces). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
  return words;
}

describe("the real codex binary and agentkit serve --codex", () => {
  it("runs the printed -c overrides with the token from the printed env file, and the tool body's text reaches the model", async () => {
    await using h = Hermetic.create();
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "run_check", arguments: { name: "lint" } }] },
      { text: "done" },
    ]);
    await using serve = await ServeProcess.start([OPS, "--codex"]);
    const envFile = /set -a; \. (\S+); set \+a/.exec(serve.stdout)![1]!;
    const env = Object.fromEntries(
      readFileSync(envFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    const words = shellWords(/^ {2}codex exec (.+) '<task>'$/m.exec(serve.stdout)![1]!);
    const provider = Object.entries(codexFakeProvider(api.url)).flatMap(([k, v]) => ["-c", tomlOverride(k, v)]);
    const { code, stdout, stderr } = await runCli(
      CODEX_BIN,
      [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--ephemeral",
        "-s",
        "read-only",
        "-m",
        "fake-model",
        ...words,
        ...provider,
        ...CODEX_HERMETIC_ARGS,
        "check lint",
      ],
      { cwd: h.cwd, env: { ...h.codexEnv(), ...env } },
    );
    expect(code, `codex failed:\n${stdout}\n${stderr}`).toBe(0);
    expect(
      api
        .functionOutputs()
        .map((o) => o.text)
        .join("\n"),
    ).toContain("lint:lax:ok");
    const call = jsonLines<{ type: string; item?: { type: string; status?: string; server?: string; tool?: string } }>(stdout).find(
      (e) => e.type === "item.completed" && e.item?.type === "mcp_tool_call",
    );
    expect(call?.item).toMatchObject({ server: "engine", tool: "run_check", status: "completed" });
    expect(await serve.stop()).toEqual({ code: 0, signal: null });
    expect(serve.stderr).toContain("after 1 call(s)");
  });
});
