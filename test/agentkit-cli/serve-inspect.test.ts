/**
 * @module test/agentkit-cli/serve-inspect.test
 * `agentkit serve` and `agentkit inspect`/`call` against each other, all as
 * real subprocesses: serve prints what to paste and writes the 0600 config;
 * inspect reads the token from that file; SIGTERM/SIGINT stop cleanly (exit
 * 0, config removed, port released); the stdio transport is a clean child.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AGENTKIT, FIXTURES, MODULES, ROOT, ServeProcess, killGroup, portIsFree, requireBuild, runAgentkit } from "./agentkit-process.js";
import type { InspectReport } from "../../src/bin/server-report.js";

beforeAll(requireBuild);

const OPS = join(MODULES, "ops-module.js");
const TWO = join(MODULES, "two-modules.js");
const SEED_BAD_CALL = "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']";

const dirs: string[] = [];
function scratchDir(): string {
  const d = mkdtempSync(join(tmpdir(), "agentkit-test-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The Authorization header of server `name` in a written config document. */
function authorization(path: string, name: string): string {
  const doc = JSON.parse(readFileSync(path, "utf8")) as { mcpServers: Record<string, { headers?: Record<string, string> }> };
  return doc.mcpServers[name]!.headers!.Authorization!;
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("agentkit serve (http) + agentkit inspect/call --url", () => {
  it("prints the Claude Code line naming the 0600 --write-mcp-json file, serves the module, and SIGTERM stops it cleanly", async () => {
    const path = join(scratchDir(), "mcp.json");
    await using serve = await ServeProcess.start([OPS, "--write-mcp-json", path]);
    const { url, port } = serve;
    expect(serve.stdout).toBe(
      [
        // The module's read_result is served too (result budgets are on by default) and, read-only, allowed.
        `agentkit serve: 'engine' is serving 3 tool(s) at ${url} — the bearer token is in ${path} (mode 0600), never printed`,
        "  mcp__engine__deploy  (requires approval)",
        "  mcp__engine__read_result",
        "  mcp__engine__run_check",
        "",
        "Claude Code:",
        `  claude --mcp-config ${path} --strict-mcp-config --allowedTools mcp__engine__read_result,mcp__engine__run_check`,
        "",
        "Ctrl-C (SIGINT) or SIGTERM stops the server and removes the config.",
        "",
      ].join("\n"),
    );
    expect(mode(path)).toBe(0o600);
    const doc = JSON.parse(readFileSync(path, "utf8"));
    expect(doc).toEqual({
      mcpServers: { engine: { type: "http", url, headers: { Authorization: expect.stringMatching(/^Bearer [A-Za-z0-9_-]{43}$/) } } },
    });
    const header = `Authorization: ${authorization(path, "engine")}`;
    expect(serve.stdout + serve.stderr).not.toContain(header.slice("Authorization: Bearer ".length));

    const inspected = await runAgentkit(["inspect", "--json", "--url", url, "--header", header]);
    expect(inspected.stderr).toBe("");
    expect(inspected.code).toBe(0);
    const report = JSON.parse(inspected.stdout) as InspectReport;
    // resources (and completions): the module's agentkit://results/{id} template, served while result budgets are on (the default).
    expect(report.server).toMatchObject({
      name: "engine",
      qualifiedAs: "engine",
      capabilities: ["completions", "extensions", "logging", "resources", "tools"],
    });
    const byName = Object.fromEntries(report.tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(["deploy", "read_result", "run_check"]);
    expect(byName.run_check).toMatchObject({
      qualifiedName: "mcp__engine__run_check",
      sideEffecting: true,
      readOnlyHint: true,
      agentkit: { side_effecting: false, requires_approval: false, caps: [] },
      arguments: [
        { name: "name", type: "string", required: true, description: null },
        { name: "strict", type: "boolean", required: false, description: null },
      ],
    });
    expect(byName.deploy).toMatchObject({
      qualifiedName: "mcp__engine__deploy",
      readOnlyHint: false,
      agentkit: { side_effecting: true, requires_approval: true, caps: ["egress"] },
    });

    const text = await runAgentkit(["inspect", "--url", url, "--header", header]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "  run_check — Run the named check and report whether it passed.\n    qualified: mcp__engine__run_check\n    side-effecting: yes (as mcpTools adapts it: the server's read-only word is trusted only with trustReadOnlyHint: true)   read-only hint: yes   declared: side_effecting=false requires_approval=false\n    args: name: string (required), strict: boolean",
    );

    expect(await runAgentkit(["call", "run_check", "--args", '{"name": "lint"}', "--url", url, "--header", header])).toMatchObject({
      code: 0,
      stdout: "lint:lax:ok\n",
      stderr: "",
    });
    // The seed's bad call: the tool's own error text, verbatim, on stderr; exit 1.
    expect(
      await runAgentkit(["call", "run_check", "--args", '{"name": "lint", "verbose": true}', "--url", url, "--header", header]),
    ).toMatchObject({
      code: 1,
      stdout: "",
      stderr: `${SEED_BAD_CALL}\n`,
    });
    // The qualified name a Claude transcript shows is accepted too.
    expect(
      await runAgentkit(["call", "mcp__engine__deploy", "--args", '{"target": "staging"}', "--url", url, "--header", header]),
    ).toMatchObject({
      code: 0,
      stdout: "deployed to staging after 1 check(s)\n",
    });

    expect(await serve.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(serve.stderr).toContain("agentkit serve: stopped 'engine' on SIGTERM after 3 call(s); config removed, port released");
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(path))).toBe(true); // the directory is the caller's
    expect(await portIsFree(port)).toBe(true);
  });

  it("without --write-mcp-json names the spec's own 0600 config, and SIGINT removes it with its directory", async () => {
    await using serve = await ServeProcess.start([OPS]);
    const path = serve.configPath;
    expect(path.startsWith(join(tmpdir(), "agentkit-"))).toBe(true);
    expect(mode(path)).toBe(0o600);
    const header = `Authorization: ${authorization(path, "engine")}`;
    expect(
      await runAgentkit(["call", "run_check", "--args", '{"name": "a", "strict": true}', "--url", serve.url, "--header", header]),
    ).toMatchObject({ code: 0, stdout: "a:strict:ok\n" });
    expect(await serve.stop("SIGINT")).toEqual({ code: 0, signal: null });
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(path))).toBe(false);
    expect(await portIsFree(serve.port)).toBe(true);
  });

  it("--codex prints the -c overrides and a 0600 env file for the token, and never the token", async () => {
    await using serve = await ServeProcess.start([OPS, "--codex"]);
    const envFile = /set -a; \. (\S+); set \+a/.exec(serve.stdout)![1]!;
    expect(mode(envFile)).toBe(0o600);
    const env = readFileSync(envFile, "utf8");
    const token = /^AGENTKIT_MCP_TOKEN_ENGINE=([A-Za-z0-9_-]{43})\n$/.exec(env)![1]!;
    expect(serve.stdout + serve.stderr).not.toContain(token);
    expect(serve.stdout).toContain(`Codex: the token travels in AGENTKIT_MCP_TOKEN_ENGINE, never in argv; ${envFile} (mode 0600) sets it:`);
    expect(serve.stdout).toContain(
      `  codex exec -c 'mcp_servers.engine.url="${serve.url}"' -c 'mcp_servers.engine.bearer_token_env_var="AGENTKIT_MCP_TOKEN_ENGINE"' -c mcp_servers.engine.required=true -c mcp_servers.engine.tool_timeout_sec=31536000 -c 'mcp_servers.engine.tools.read_result.approval_mode="approve"' -c 'mcp_servers.engine.tools.run_check.approval_mode="approve"' '<task>'`,
    );
    expect(serve.stdout).not.toContain("claude --mcp-config");
    // The token in the env file is the live one.
    expect(
      await runAgentkit(["call", "run_check", "--args", '{"name": "x"}', "--url", serve.url, "--header", `Authorization: Bearer ${token}`]),
    ).toMatchObject({ code: 0, stdout: "x:lax:ok\n" });
    expect((await serve.stop()).code).toBe(0);
    expect(existsSync(envFile)).toBe(false);
    expect(existsSync(dirname(envFile))).toBe(false);
  });

  it("--export picks one of several modules; approvals add --permission-prompt-tool and the guard asks the module's Asker", async () => {
    await using serve = await ServeProcess.start([TWO, "--export", "GuardedModule"]);
    const path = serve.configPath;
    expect(serve.stdout).toContain(
      `  claude --mcp-config ${path} --strict-mcp-config --allowedTools mcp__guarded__lookup,mcp__guarded__read_result --permission-prompt-tool mcp__agentkit_approvals__approve --setting-sources ''`,
    );
    expect(serve.stdout).toMatch(/ {2}approvals: mcp__agentkit_approvals__approve at http:\/\/127\.0\.0\.1:\d+\/mcp(-\d+)?\n/);
    expect(mode(path)).toBe(0o600);
    const servers = JSON.parse(readFileSync(path, "utf8")).mcpServers as Record<string, unknown>;
    expect(Object.keys(servers).sort()).toEqual(["agentkit_approvals", "guarded"]);
    const header = `Authorization: ${authorization(path, "guarded")}`;
    const call = (service: string) =>
      runAgentkit(["call", "restart", "--args", JSON.stringify({ service }), "--url", serve.url, "--header", header]);
    expect(await call("web")).toMatchObject({ code: 0, stdout: "restarted web\n" });
    const refused = await call("db");
    expect(refused.code).toBe(1);
    // stderr first says the call waits for a person (the tool requires approval), then the refusal.
    expect(refused.stderr).toBe(
      "agentkit call: 'restart' needs a person's approval; waiting for their answer as long as the server keeps the call alive (Ctrl-C gives up)\ntool 'restart' was not run: rejected by ops: not the database\n",
    );
    expect((await serve.stop()).code).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(path))).toBe(false);
  });
});

describe("agentkit serve --timeout-ms", () => {
  it("is the served tools' per-call deadline, over http and over stdio (the seed's sentence)", async () => {
    const slow = join(FIXTURES, "slow-tool-module.mjs");
    const abandoned = "tool 'slow_build' did not return within 0.3s and was abandoned\n";
    await using serve = await ServeProcess.start([slow, "--timeout-ms", "300"]);
    const header = `Authorization: ${authorization(serve.configPath, "slow")}`;
    expect(await runAgentkit(["call", "slow_build", "--url", serve.url, "--header", header])).toMatchObject({
      code: 1,
      stdout: "",
      stderr: abandoned,
    });
    expect((await serve.stop()).code).toBe(0);
    const child = [process.execPath, AGENTKIT, "serve", slow, "--transport", "stdio", "--timeout-ms", "300"];
    expect(await runAgentkit(["call", "slow_build", "--", ...child])).toMatchObject({ code: 1, stdout: "", stderr: abandoned });
  });
});

describe("agentkit serve --transport stdio", () => {
  it("is a stdio MCP server that agentkit inspect and call can spawn", async () => {
    const child = [process.execPath, AGENTKIT, "serve", OPS, "--transport", "stdio"];
    const inspected = await runAgentkit(["inspect", "--json", "--", ...child]);
    expect(inspected.code).toBe(0);
    const report = JSON.parse(inspected.stdout) as InspectReport;
    expect(report.tools.map((t) => t.qualifiedName).sort()).toEqual([
      "mcp__engine__deploy",
      "mcp__engine__read_result",
      "mcp__engine__run_check",
    ]);
    expect(await runAgentkit(["call", "run_check", "--args", '{"name": "lint"}', "--", ...child])).toMatchObject({
      code: 0,
      stdout: "lint:lax:ok\n",
    });
    expect(await runAgentkit(["call", "run_check", "--args", '{"name": "lint", "verbose": true}', "--", ...child])).toMatchObject({
      code: 1,
      stderr: `${SEED_BAD_CALL}\n`,
    });
  });

  it("writes only protocol on stdout (a module's console.log goes to stderr) and exits 0 when stdin closes", async () => {
    const child = spawn(process.execPath, [AGENTKIT, "serve", join(FIXTURES, "logs-to-stdout-module.mjs"), "--transport", "stdio"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    try {
      let stderr = "";
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const lines: string[] = [];
      const answered = new Promise<void>((resolve) => {
        createInterface({ input: child.stdout! }).on("line", (line) => {
          lines.push(line);
          if (line.includes('"id":2')) resolve();
        });
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const send = (m: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
      send({
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
      });
      send({ method: "notifications/initialized" });
      send({ id: 2, method: "tools/call", params: { name: "shout", arguments: { text: "hi" } } });
      await answered;
      child.stdin!.end();
      expect(await exited).toBe(0);
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
      expect(JSON.parse(lines.find((l) => l.includes('"id":2'))!).result).toEqual({ content: [{ type: "text", text: "HI" }] });
      expect(stderr).toContain("logs-to-stdout-module: loading");
      expect(stderr).toContain("shout called with hi");
      expect(stderr).toContain("agentkit serve: 'loud' (LoudModule) serving 1 tool(s) on stdio");
      expect(stderr).toContain("agentkit serve: 'loud' stopped (stdin closed)");
    } finally {
      await killGroup(child);
    }
  });
});
