/**
 * @module test/agentkit-cli/mcp-config.test
 * `agentkit call` / `agentkit inspect --mcp-config <file> [--server <name>]`,
 * as real subprocesses against a real `agentkit serve` and a real stdio
 * server: the document serve writes is read (its bearer token never printed);
 * without `--server` the only server is used, else the one that has the tool,
 * else a refusal naming the servers; a bad file or a second target is refused
 * (exit 2) naming what was wrong.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectReport } from "../../src/bin/server-report.js";
import { MODULES, requireBuild, ROOT, runAgentkit, ServeProcess } from "./agentkit-process.js";

beforeAll(requireBuild);
const dir = mkdtempSync(join(tmpdir(), "agentkit-mcp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPS = join(MODULES, "ops-module.js");
const TOOLS_SERVER = join(ROOT, "test/fixtures/servers/tools-stdio-server.mjs");

/** The bearer token of `engine` in the document at `path`. */
const tokenOf = (path: string): string => {
  const doc = JSON.parse(readFileSync(path, "utf8")) as { mcpServers: { engine: { headers: { Authorization: string } } } };
  return doc.mcpServers.engine.headers.Authorization.slice("Bearer ".length);
};

describe("agentkit call / inspect --mcp-config", () => {
  it("read the document agentkit serve writes: the only server, one of two by --server or by the tool, else a refusal naming them; the token never printed", async () => {
    const served = join(dir, "served.json");
    await using serve = await ServeProcess.start([OPS, "--write-mcp-json", served]);
    const token = tokenOf(served);
    const outputs: string[] = [];
    const run = async (args: string[]) => {
      const r = await runAgentkit(args);
      outputs.push(r.stdout, r.stderr);
      return r;
    };

    const inspected = await run(["inspect", "--json", "--mcp-config", served]);
    expect(inspected.stderr).toBe("");
    expect(inspected.code).toBe(0);
    expect((JSON.parse(inspected.stdout) as InspectReport).server).toMatchObject({ name: "engine" });
    const called = await run(["call", "run_check", "--mcp-config", served, "--args", '{"name":"lint"}']);
    expect(called.stderr).toBe("");
    expect(called.code).toBe(0);

    // Two servers: the served one and a stdio one.
    const two = join(dir, "two.json");
    const doc = JSON.parse(readFileSync(served, "utf8")) as { mcpServers: Record<string, unknown> };
    doc.mcpServers.kb = { type: "stdio", command: process.execPath, args: [TOOLS_SERVER, "search"], env: {} };
    writeFileSync(two, JSON.stringify(doc), { mode: 0o600 });
    const bySearch = await run(["call", "search", "--mcp-config", two, "--args", '{"q":"milk"}']);
    expect(bySearch.stderr).toBe("");
    expect(bySearch.stdout).toBe("search:milk\n");
    expect((await run(["call", "run_check", "--mcp-config", two, "--args", '{"name":"lint"}'])).code).toBe(0);
    const byName = await run(["call", "search", "--mcp-config", two, "--server", "kb", "--args", '{"q":"tea"}']);
    expect(byName.stdout).toBe("search:tea\n");
    const nobody = await run(["call", "nope", "--mcp-config", two, "--args", "{}"]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain(
      `agentkit call: no server in '${two}' has a tool 'nope'. Its servers: 'engine' (deploy, read_result, run_check), 'kb' (search)`,
    );
    const which = await run(["inspect", "--mcp-config", two]);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain(`agentkit inspect: '${two}' holds 2 servers ['engine', 'kb']; pick one with --server <name>`);
    const ghost = await run(["inspect", "--mcp-config", two, "--server", "ghost"]);
    expect(ghost.code).toBe(2);
    expect(ghost.stderr).toContain(`agentkit inspect: '${two}' has no server 'ghost'. Its servers: ['engine', 'kb']`);
    const kb = await run(["inspect", "--json", "--mcp-config", two, "--server", "kb"]);
    expect(kb.code).toBe(0);
    expect((JSON.parse(kb.stdout) as InspectReport).tools.map((t) => t.name)).toEqual(["search"]);

    for (const out of outputs) expect(out).not.toContain(token);
    expect(serve.stdout + serve.stderr).not.toContain(token);
  }, 180_000);

  it("refuses a missing or malformed file, --server without --mcp-config, and a second target, naming what was wrong (exit 2)", async () => {
    const missing = join(dir, "missing.json");
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "{ mcpServers");
    const noServers = join(dir, "empty.json");
    writeFileSync(noServers, JSON.stringify({ servers: {} }));
    const cases: Array<[string[], string]> = [
      [
        ["inspect", "--mcp-config", missing],
        `agentkit inspect: cannot read --mcp-config '${missing}' (ENOENT); give the file agentkit serve wrote (--write-mcp-json)`,
      ],
      [["inspect", "--mcp-config", notJson], `agentkit inspect: --mcp-config '${notJson}' is not JSON`],
      [
        ["inspect", "--mcp-config", noServers],
        `agentkit inspect: --mcp-config '${noServers}' has no "mcpServers" object (the document agentkit serve writes: {"mcpServers": {"<name>": {...}}})`,
      ],
      [
        ["inspect", "--server", "engine", "--url", "http://127.0.0.1:1/mcp"],
        "agentkit inspect: --server picks a server of --mcp-config <file>; give --mcp-config too",
      ],
      [
        ["call", "x", "--mcp-config", noServers, "--url", "http://127.0.0.1:1/mcp"],
        "agentkit call: give one of --mcp-config, --url or a command after '--'",
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runAgentkit(args);
      expect(r.stderr, args.join(" ")).toContain(message);
      expect(r.code, args.join(" ")).toBe(2);
    }
  }, 120_000);
});
