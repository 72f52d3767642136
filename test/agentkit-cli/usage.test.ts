/**
 * @module test/agentkit-cli/usage.test
 * `agentkit` as a user first meets it: `--help` for the command and each
 * subcommand, `--version`, and command lines that cannot run as written —
 * each refused with one line on stderr and exit code 2, before anything is
 * spawned or connected.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, requireBuild, runAgentkit } from "./agentkit-process.js";

beforeAll(requireBuild);

/** Exactly one line on stderr, nothing on stdout, exit code 2. */
async function usageError(args: string[]): Promise<string> {
  const r = await runAgentkit(args);
  expect(r.stdout).toBe("");
  expect(r.code).toBe(2);
  expect(r.stderr.endsWith("\n")).toBe(true);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  return r.stderr.trimEnd();
}

describe("agentkit --help and --version", () => {
  it("prints the overview with every command on stdout and exits 0", async () => {
    const r = await runAgentkit(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^agentkit — serve an @McpServer module to Claude Code or Codex/);
    for (const c of [
      "agentkit serve <module-file>",
      "agentkit inspect [options] -- <command...>",
      "agentkit inspect --url URL",
      "agentkit call <tool>",
    ])
      expect(r.stdout).toContain(c);
  });

  it.each([
    [
      "serve",
      "Usage: agentkit serve <module-file> [options]",
      ["--export <Name>", "--transport <http|stdio>", "--timeout-ms <N>", "--write-mcp-json <PATH>", "--codex"],
    ],
    [
      "inspect",
      "Usage: agentkit inspect [options] -- <command...>",
      ["--url <URL>", "--header", "--json", "--prefix", "--json shape (stable):"],
    ],
    ["call", "Usage: agentkit call <tool> [--args '{...}'] [options] -- <command...>", ["--args <json>", "--url <URL>", "isError"]],
    ["inbox", "Usage: agentkit inbox migrate <postgres-url> [--schema NAME]", ["--store-env VAR", "--schema NAME", "PGPASSWORD"]],
  ])("agentkit %s --help documents its options and exits 0", async (command, first, options) => {
    for (const flag of ["--help", "-h"]) {
      const r = await runAgentkit([command, flag]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout.split("\n")[0]).toBe(first);
      for (const o of options) expect(r.stdout).toContain(o);
    }
  });

  it("prints the package version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    const r = await runAgentkit(["--version"]);
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("without a command prints the overview on stderr and exits 2", async () => {
    const r = await runAgentkit([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage:");
  });
});

describe("command lines that cannot run as written exit 2 with one line", () => {
  it("names an unknown command and lists the real ones", async () => {
    expect(await usageError(["frobnicate"])).toBe(
      "agentkit: unknown command 'frobnicate'. Commands: init, serve, host, inspect, call, login, approve, inbox, runs (see agentkit --help)",
    );
  });

  it("names an unknown option and lists the accepted ones", async () => {
    expect(await usageError(["inspect", "--bogus"])).toBe(
      "agentkit inspect: unknown option '--bogus'. Accepted options: --url <value>, --header <value>, --header-env <value>, --env <value>, --cwd <value>, --timeout-ms <value>, --protocol <value>, --mcp-config <value>, --server <value>, --prefix <value>, --name <value>, --json, --verbose, --help (see agentkit inspect --help)",
    );
  });

  it("asks which server when neither --url nor a command is given, and refuses both", async () => {
    const usage =
      "agentkit inspect ... -- <command...>  or  agentkit inspect ... --url URL [--header 'Name: value']  or  agentkit inspect ... --mcp-config <file> [--server <name>]";
    expect(await usageError(["inspect"])).toBe(`agentkit inspect: say which server to connect to: ${usage}`);
    expect(await usageError(["inspect", "--url", "http://127.0.0.1:1/mcp", "--", "node", "x.js"])).toBe(
      `agentkit inspect: give --url or a command after '--', not both: ${usage}`,
    );
  });

  it("refuses a malformed --header without echoing its value (it may be a credential)", async () => {
    const line = await usageError(["inspect", "--url", "http://127.0.0.1:1/mcp", "--header", "Bearer s3cret-token"]);
    expect(line).toBe(
      "agentkit inspect: --header #1 is not 'Name: value' (it has no ':'); pass e.g. --header 'Authorization: Bearer <token>'",
    );
    expect(line).not.toContain("s3cret");
  });

  it("refuses a --timeout-ms that is not a positive whole number", async () => {
    expect(await usageError(["inspect", "--timeout-ms", "soon", "--", "node", "x.js"])).toBe(
      "agentkit inspect: --timeout-ms must be a positive whole number of milliseconds (e.g. --timeout-ms 30000), got 'soon'",
    );
  });

  it("refuses bad --args JSON before spawning the server, naming what was wrong and what is accepted", async () => {
    const accepted = `Accepted: one JSON object of argument names to values, e.g. --args '{"name": "lint"}' (or --args '{}' for none)`;
    // The command does not exist: had it been spawned, the failure would be ENOENT and exit 1.
    const server = ["--", "agentkit-no-such-server-command"];
    expect(await usageError(["call", "run_check", "--args", '{"name": lint}', ...server])).toBe(
      `agentkit call: --args is not valid JSON (Unexpected token 'l', "{"name": lint}" is not valid JSON). ${accepted}`,
    );
    expect(await usageError(["call", "run_check", "--args", '["lint"]', ...server])).toBe(
      `agentkit call: --args must be a JSON object, got array ["lint"]. ${accepted}`,
    );
    expect(await usageError(["call", "run_check", "--args", '"lint"', ...server])).toBe(
      `agentkit call: --args must be a JSON object, got string "lint". ${accepted}`,
    );
  });

  it("asks for the tool name of call", async () => {
    expect(await usageError(["call", "--", "node", "x.js"])).toBe(
      "agentkit call: name the tool to call: agentkit call <tool> --args '{...}' -- <command...> (see agentkit call --help)",
    );
  });

  it("checks serve's own flags", async () => {
    expect(await usageError(["serve"])).toBe(
      "agentkit serve: name the built module file to serve: agentkit serve <module-file> [--export Name] (see agentkit serve --help)",
    );
    expect(await usageError(["serve", "m.js", "--transport", "tcp"])).toBe("agentkit serve: --transport must be http or stdio, got 'tcp'");
    expect(await usageError(["serve", "m.js", "--transport", "stdio", "--write-mcp-json", "x.json"])).toMatch(
      /^agentkit serve: --write-mcp-json is for --transport http; with --transport stdio this process is the child a CLI spawns/,
    );
    expect(await usageError(["serve", "m.js", "--write-mcp-json", "/nonexistent-dir-agentkit/mcp.json"])).toBe(
      "agentkit serve: --write-mcp-json: '/nonexistent-dir-agentkit' is not an existing directory; create it or choose another path",
    );
  });
});
