/**
 * @module test/agentkit-cli/errors.test
 * Failures a person can act on: each is ONE line on stderr naming the thing,
 * where, and what to do, with exit code 1 (run time) or 2 (the command line
 * or the file named on it) — and a stack trace only with --verbose.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, FIXTURES, MODULES, ROOT, ServeProcess, requireBuild, runAgentkit } from "./agentkit-process.js";
import { pidsMatching } from "../helpers/procs.js";

beforeAll(requireBuild);

const rel = (p: string) => relative(ROOT, p);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Exactly one line on stderr (no stack), nothing on stdout, the expected exit code; returns the line. */
async function oneLineFailure(args: string[], code: 1 | 2, env?: Record<string, string>): Promise<string> {
  const r = await runAgentkit(args, { ...(env ? { env } : {}) });
  expect(r.stdout).toBe("");
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.code).toBe(code);
  return r.stderr.trimEnd();
}

describe("agentkit serve: the module file", () => {
  it("a path that does not exist (exit 2)", async () => {
    expect(await oneLineFailure(["serve", "dist/no-such.module.js"], 2)).toBe(
      `agentkit serve: cannot read module file 'dist/no-such.module.js' (${join(ROOT, "dist/no-such.module.js")}): no such file. Pass the built .js file of an @McpServer module, e.g. dist/app.module.js`,
    );
  });

  it("TypeScript source instead of the built file (exit 2)", async () => {
    expect(await oneLineFailure(["serve", "samples/modules/ops-module.ts"], 2)).toBe(
      "agentkit serve: 'samples/modules/ops-module.ts' is TypeScript source; compile it with tsc (experimentalDecorators and emitDecoratorMetadata on) and pass the built .js file",
    );
  });

  it("a module that throws while it is imported (exit 1), and the stack only with --verbose", async () => {
    const file = rel(join(FIXTURES, "throws-on-import.mjs"));
    expect(await oneLineFailure(["serve", file], 1)).toBe(
      `agentkit serve: cannot load module file '${file}': Error: DATABASE_URL is not set`,
    );
    const verbose = await runAgentkit(["serve", file, "--verbose"]);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr.split("\n")[0]).toBe(`agentkit serve: cannot load module file '${file}': Error: DATABASE_URL is not set`);
    expect(verbose.stderr).toMatch(/caused by: Error: DATABASE_URL is not set\n\s+at .*throws-on-import\.mjs/);
  });

  it("a file that is not valid JavaScript (exit 1)", async () => {
    const file = rel(join(FIXTURES, "syntax-error.mjs"));
    expect(await oneLineFailure(["serve", file], 1)).toBe(
      `agentkit serve: cannot load module file '${file}': SyntaxError: Unexpected token ':'`,
    );
  });

  it("a module without @McpServer (exit 2) lists what it does export", async () => {
    const file = rel(join(FIXTURES, "no-mcp-server.mjs"));
    expect(await oneLineFailure(["serve", file], 2)).toBe(
      `agentkit serve: module file '${file}' exports no @McpServer class (its exports: PlainService, VERSION); decorate a module class with @McpServer({ name, tools }) and export it`,
    );
  });

  it("several @McpServer classes and no --export (exit 2), or an --export that names none (exit 2)", async () => {
    const file = rel(join(MODULES, "two-modules.js"));
    expect(await oneLineFailure(["serve", file], 2)).toBe(
      `agentkit serve: module file '${file}' exports 2 @McpServer classes (ChecksModule, GuardedModule); choose one with --export ChecksModule`,
    );
    expect(await oneLineFailure(["serve", file, "--export", "OpsModule"], 2)).toBe(
      `agentkit serve: module file '${file}' has no export 'OpsModule'; its @McpServer exports are: ChecksModule, GuardedModule`,
    );
    expect(await oneLineFailure(["serve", file, "--export", "Lookup"], 2)).toBe(
      `agentkit serve: export 'Lookup' of '${file}' is not decorated with @McpServer; its @McpServer exports are: ChecksModule, GuardedModule`,
    );
  });

  it("a module whose server cannot start (its port is taken) fails with exit 1, naming the port", async () => {
    const holder: Server = createServer();
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", () => r()));
    cleanups.push(() => holder.close());
    const port = (holder.address() as { port: number }).port;
    const line = await oneLineFailure(["serve", rel(join(FIXTURES, "busy-port-module.mjs"))], 1, { AGENTKIT_FIXTURE_PORT: String(port) });
    expect(line).toMatch(/^agentkit serve: bootstrap\(BusyPortModule\): the 'busy' server could not start: /);
    expect(line).toContain(`127.0.0.1:${port}`);
  });
});

describe("agentkit inspect / call: the server", () => {
  it("a stdio server that dies on start: its exit and the tail of its stderr", async () => {
    const line = await oneLineFailure(
      ["inspect", "--", "node", "-e", 'console.error("loading config"); console.error("fatal: DATABASE_URL is not set"); process.exit(3)'],
      1,
    );
    // The exit status is named when it is known by the time the connection drops (a race the client does not wait out).
    expect(line.replace(" (the server process exited with code 3)", "")).toBe(
      `agentkit inspect: stdio server 'node -e console.error("loading config"); console.error("fatal: DATABASE_URL is not set"); process.exit(3)' failed to start: Connection closed; its stderr ended with: loading config ⏎ fatal: DATABASE_URL is not set`,
    );
  });

  it("a process that prints something else on stdout: what it printed, within 10 s (issue #43 point 5)", async () => {
    const started = Date.now();
    const fixture = join(ROOT, "test/fixtures/servers/prints-to-stdout.mjs");
    expect(await oneLineFailure(["inspect", "--", "node", fixture], 1)).toBe(
      `agentkit inspect: could not connect to stdio server 'node ${fixture}': no MCP answer within 8s of its start (it printed on stdout, where only JSON-RPC may go: 'hello world, I am not an MCP server'; is the command an MCP server (some take a flag such as 'stdio' or '--stdio')?)`,
    );
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 40_000);

  it("a command that does not exist", async () => {
    expect(await oneLineFailure(["call", "x", "--", "agentkit-no-such-server-command", "--stdio"], 1)).toBe(
      "agentkit call: cannot start stdio server 'agentkit-no-such-server-command --stdio': command not found (ENOENT); check the command after '--' and your PATH",
    );
  });

  it("a server that never answers: a timeout naming the deadline, and the server is ended", async () => {
    const marker = `agentkit-silent-${process.pid}-${Date.now()}`;
    const script = `/* ${marker} */ setInterval(() => {}, 1000)`;
    expect(await oneLineFailure(["inspect", "--timeout-ms", "1500", "--", "node", "-e", script], 1)).toBe(
      `agentkit inspect: stdio server 'node -e ${script}' did not answer within 1.5s. Check that it is an MCP server (a stdio server must speak JSON-RPC on stdout), or raise --timeout-ms`,
    );
    expect(pidsMatching(marker)).toEqual([]);
  });

  it("a tool call silent for longer than --timeout-ms (its first progress comes at 15 s)", async () => {
    expect(
      await oneLineFailure(
        ["call", "trigger-long-running-operation", "--args", '{"duration": 30, "steps": 2}', "--timeout-ms", "8000", "--", ...EVERYTHING],
        1,
      ),
    ).toBe(
      `agentkit call: tools/call 'trigger-long-running-operation' on stdio server '${EVERYTHING.join(" ")}' sent nothing (no result, no progress) for 8s; the tool may still be running there. Raise --timeout-ms to wait longer`,
    );
  });

  it("nothing listening at --url", async () => {
    const holder: Server = createServer();
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", () => r()));
    const port = (holder.address() as { port: number }).port;
    await new Promise<void>((r) => holder.close(() => r()));
    expect(await oneLineFailure(["inspect", "--url", `http://127.0.0.1:${port}/mcp`], 1)).toBe(
      `agentkit inspect: nothing is listening at http://127.0.0.1:${port}/mcp (connection refused); is the server running, and is the port right?`,
    );
  });

  it("a 401 says the token is wrong or missing, for a missing and for a wrong token, and never echoes it", async () => {
    await using serve = await ServeProcess.start([join(MODULES, "ops-module.js")]);
    const expected = `agentkit inspect: streamable HTTP server ${serve.url} answered 401 Unauthorized — the token is wrong or missing. Pass it with --header-env Authorization=VAR (VAR holding 'Bearer <token>'; agentkit serve --write-mcp-json PATH writes it there, mode 0600) or --header 'Authorization: Bearer <token>'`;
    expect(await oneLineFailure(["inspect", "--url", serve.url], 1)).toBe(expected);
    expect(await oneLineFailure(["inspect", "--url", serve.url, "--header", "Authorization: Bearer not-the-token"], 1)).toBe(expected);
    expect(
      await oneLineFailure(["call", "run_check", "--args", "{}", "--url", serve.url, "--header", "Authorization: Bearer not-the-token"], 1),
    ).toBe(expected.replace("agentkit inspect:", "agentkit call:"));
    expect((await serve.stop()).code).toBe(0);
  });

  it("a missing 0600 config path is reported by serve before it starts anything", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentkit-test-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "file"), "");
    expect(await oneLineFailure(["serve", rel(join(MODULES, "ops-module.js")), "--write-mcp-json", join(dir, "file", "mcp.json")], 2)).toBe(
      `agentkit serve: --write-mcp-json: '${join(dir, "file")}' is not an existing directory; create it or choose another path`,
    );
  });
});
