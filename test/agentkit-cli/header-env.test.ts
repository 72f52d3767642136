/**
 * @module test/agentkit-cli/header-env.test
 * `agentkit inspect|call --header-env Name=VAR`: a header value read from the
 * environment, so a bearer token need not be typed into argv (which any local
 * user can read). Real subprocesses against a real `agentkit serve`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODULES, ServeProcess, requireBuild, runAgentkit } from "./agentkit-process.js";

const OPS = join(MODULES, "ops-module.js");

let dir: string;
let serve: ServeProcess;
let authorization: string;
beforeAll(async () => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "agentkit-test-"));
  const path = join(dir, "mcp.json");
  serve = await ServeProcess.start([OPS, "--write-mcp-json", path]);
  authorization = (JSON.parse(readFileSync(path, "utf8")) as { mcpServers: { engine: { headers: { Authorization: string } } } }).mcpServers
    .engine.headers.Authorization;
});
afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The one stderr line of a run that must exit 2 (a command line that cannot run as written). */
async function usageLine(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await runAgentkit(args, { env });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  return r.stderr.trimEnd();
}

describe("agentkit inspect|call --header-env Name=VAR", () => {
  it("sends the variable's value as the header: inspect lists the tools, call runs one; the token is in no argv", async () => {
    expect(authorization).toMatch(/^Bearer [A-Za-z0-9_-]{43}$/);
    const env = { MCP_AUTH: authorization };
    const args = ["--url", serve.url, "--header-env", "Authorization=MCP_AUTH"];
    expect(args.join(" ")).not.toContain(authorization.slice("Bearer ".length));
    const inspected = await runAgentkit(["inspect", "--json", ...args], { env });
    expect(inspected).toMatchObject({ code: 0, stderr: "" });
    expect((JSON.parse(inspected.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual([
      "deploy",
      "read_result",
      "run_check",
    ]);
    expect(await runAgentkit(["call", "run_check", "--args", '{"name": "lint"}', ...args], { env })).toMatchObject({
      code: 0,
      stdout: "lint:lax:ok\n",
      stderr: "",
    });
  });

  it("a wrong value is the server's 401, and the line says how to pass the token", async () => {
    const r = await runAgentkit(
      ["call", "run_check", "--args", '{"name": "x"}', "--url", serve.url, "--header-env", "Authorization=MCP_AUTH"],
      { env: { MCP_AUTH: "Bearer wrong" } },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("answered 401 Unauthorized");
    expect(r.stderr).toContain("--header-env Authorization=VAR");
  });

  it("an unset or empty variable is refused naming it (exit 2, before connecting)", async () => {
    const args = ["inspect", "--url", serve.url, "--header-env", "Authorization=AGENTKIT_TEST_NO_SUCH_VAR"];
    expect(await usageLine(args)).toBe(
      "agentkit inspect: --header-env Authorization=AGENTKIT_TEST_NO_SUCH_VAR: the environment variable AGENTKIT_TEST_NO_SUCH_VAR is not set; set it to the header's value (e.g. export AGENTKIT_TEST_NO_SUCH_VAR='Bearer <token>')",
    );
    expect(await usageLine(args, { AGENTKIT_TEST_NO_SUCH_VAR: "" })).toContain(
      "the environment variable AGENTKIT_TEST_NO_SUCH_VAR is empty",
    );
  });

  it("a malformed entry, one header given twice, or --header-env for a stdio server is refused in one line", async () => {
    expect(await usageLine(["call", "x", "--url", serve.url, "--header-env", "Authorization"])).toBe(
      "agentkit call: --header-env #1 is not 'Name=VAR' (it has no '='); pass e.g. --header-env Authorization=MCP_AUTH with MCP_AUTH='Bearer <token>' in the environment",
    );
    expect(await usageLine(["call", "x", "--url", serve.url, "--header-env", "Authorization=Bearer abc"])).toContain(
      "its variable is not a valid environment variable name",
    );
    expect(
      await usageLine(["call", "x", "--url", serve.url, "--header", "authorization: Bearer x", "--header-env", "Authorization=MCP_AUTH"], {
        MCP_AUTH: "Bearer y",
      }),
    ).toBe("agentkit call: header 'Authorization' is given by both --header and --header-env; give it once");
    expect(await usageLine(["inspect", "--header-env", "Authorization=MCP_AUTH", "--", "node", "x.js"])).toBe(
      "agentkit inspect: --header-env is for --url; a stdio server takes --env NAME=value instead",
    );
  });
});
