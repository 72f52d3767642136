/**
 * @module test/mcp-serve/third-party.test
 * A served registry driven by third-party MCP clients: the MCP Inspector CLI
 * (pinned inspector-cli 1.0.3, with the bearer header) and the MCP
 * conformance suite 0.1.16 (server-initialize, ping, tools-list,
 * dns-rebinding-protection; `auth: "none"`, since the suite sends no token).
 * The Inspector also lists and calls a bootstrapped `@McpServer` module.
 * Both run as real subprocesses; each is killed (whole group) if it hangs.
 */
import "reflect-metadata";
import { createServer } from "node:http";
import { container } from "tsyringe";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { bootstrap, type McpApp } from "../../src/mcp/index.js";
import { ConformanceModule } from "../fixtures/servers/conformance-module.js";
import { runNode, type NodeRun } from "../helpers/procs.js";
import { echoServer, portIsFree } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const INSPECTOR = join(ROOT, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "index.js");
// inspector-cli 1.0.3 checks for "../package.json" relative to the cwd, then imports it relative to
// itself: run it from its own build directory so both name its package.json (research §2.1).
const INSPECTOR_CWD = join(ROOT, "node_modules", "@modelcontextprotocol", "inspector-cli", "build");
const CONFORMANCE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SHIM = join(ROOT, "test", "fixtures", "conformance", "register.mjs");

const runCheck = tool(
  {
    description: "Run the named check and report whether it passed.",
    sideEffecting: false,
    input: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  },
  function runCheck({ name }: { name: string }) {
    return `${name}:ok`;
  },
);

type Run = NodeRun;

/** Run `node args...` in `cwd`; kill its process group after `ms`. */
function runIn(args: string[], cwd: string, ms = 60_000): Promise<Run> {
  return runNode(args, { cwd, ms });
}

const specs: McpServerSpec[] = [];
afterEach(async () => {
  for (const s of specs.splice(0)) {
    await s.stop();
    expect(await portIsFree(Number(new URL(s.url!).port))).toBe(true);
  }
});
/** How the MCP Inspector lists the results template a module serves while result budgets are on (the default). */
const RESULTS_TEMPLATE = {
  uriTemplate: "agentkit://results/{id}",
  name: "results",
  description: "A tool result too long to show whole (the link in its answer); readable by the caller that got it until it expires",
};

async function served(auth: "token" | "none"): Promise<McpServerSpec> {
  const spec = await serveRegistry([runCheck], { name: "engine", ctx: makeTestCtx(), auth });
  specs.push(spec);
  await spec.start();
  return spec;
}

describe("MCP Inspector CLI against a served registry", () => {
  it("lists and calls the tools with the bearer header; is refused without it", async () => {
    const spec = await served("token");
    const header = `Authorization: ${spec.authHeaders.Authorization}`;
    const list = await runIn([INSPECTOR, spec.url!, "--method", "tools/list", "--header", header], INSPECTOR_CWD);
    expect(list.code, list.stderr).toBe(0);
    const tools = (JSON.parse(list.stdout) as { tools: Array<Record<string, unknown>> }).tools;
    // The module's read_result follows its own tools: result budgets are on by default.
    expect(tools.map((t) => t.name)).toEqual(["run_check", "read_result"]);
    expect(tools[0]).toEqual({
      name: "run_check",
      description: "Run the named check and report whether it passed.",
      inputSchema: runCheck.schema.parameters,
      annotations: { readOnlyHint: true, destructiveHint: false },
      _meta: { agentkit: { side_effecting: false, requires_approval: false, caps: [] } },
    });
    const call = await runIn(
      [INSPECTOR, spec.url!, "--method", "tools/call", "--tool-name", "run_check", "--tool-arg", "name=lint", "--header", header],
      INSPECTOR_CWD,
    );
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual({ content: [{ type: "text", text: "lint:ok" }] });
    const bad = await runIn(
      [
        INSPECTOR,
        spec.url!,
        "--method",
        "tools/call",
        "--tool-name",
        "run_check",
        "--tool-arg",
        "name=lint",
        "verbose=true",
        "--header",
        header,
      ],
      INSPECTOR_CWD,
    );
    expect(JSON.parse(bad.stdout)).toEqual({
      content: [{ type: "text", text: "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name']" }],
      isError: true,
    });
    const refused = await runIn([INSPECTOR, spec.url!, "--method", "tools/list"], INSPECTOR_CWD);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Unauthorized: this MCP listener requires 'Authorization: Bearer <token>'");
    expect(spec.callsSeen).toBe(2);
  });
});

describe("MCP Inspector CLI against a bootstrapped @McpServer module", () => {
  it("lists the module's tools and calls one", async () => {
    await using app = Object.assign(await bootstrap(ConformanceModule, { container: container.createChildContainer() }), {
      [Symbol.asyncDispose]: async function (this: McpApp) {
        await this.stop();
      },
    });
    const url = app.spec!.url!;
    const list = await runIn([INSPECTOR, url, "--method", "tools/list"], INSPECTOR_CWD);
    expect(list.code, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["test_simple_text", "test_image_content", "test_error_handling"]));
    const call = await runIn([INSPECTOR, url, "--method", "tools/call", "--tool-name", "test_simple_text"], INSPECTOR_CWD);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual({ content: [{ type: "text", text: "This is a simple text response for testing." }] });
  });
});

describe("MCP Inspector CLI against served resources and prompts", () => {
  it("lists and reads the resources, lists and gets the prompts, with the bearer header", async () => {
    const spec = await serveRegistry([runCheck], {
      name: "engine",
      ctx: makeTestCtx(),
      resources: [
        {
          uriTemplate: "checks://{name}/report",
          name: "report",
          description: "A check's report.",
          read: ({ name }: Record<string, string>) => `report of ${name}`,
          list: () => [{ uri: "checks://lint/report" }],
        },
      ],
      prompts: [
        {
          name: "triage",
          description: "Triage a failing check.",
          arguments: [{ name: "check", required: true }],
          render: ({ check }) => `Triage the failing check ${check}.`,
        },
      ],
    });
    specs.push(spec);
    await spec.start();
    const inspect = async (...args: string[]) => {
      const r = await runIn([INSPECTOR, spec.url!, "--header", `Authorization: ${spec.authHeaders.Authorization}`, ...args], INSPECTOR_CWD);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    expect(await inspect("--method", "resources/list")).toEqual({
      resources: [{ uri: "checks://lint/report", name: "report", description: "A check's report." }],
    });
    // The module's results template (agentkit://results/{id}) is listed too: result budgets are on by default.
    expect(await inspect("--method", "resources/templates/list")).toEqual({
      resourceTemplates: [{ uriTemplate: "checks://{name}/report", name: "report", description: "A check's report." }, RESULTS_TEMPLATE],
    });
    expect(await inspect("--method", "resources/read", "--uri", "checks://lint/report")).toEqual({
      contents: [{ uri: "checks://lint/report", mimeType: "text/plain", text: "report of lint" }],
    });
    expect(await inspect("--method", "prompts/list")).toEqual({
      prompts: [{ name: "triage", description: "Triage a failing check.", arguments: [{ name: "check", required: true }] }],
    });
    expect(await inspect("--method", "prompts/get", "--prompt-name", "triage", "--prompt-args", "check=lint")).toEqual({
      description: "Triage a failing check.",
      messages: [{ role: "user", content: { type: "text", text: "Triage the failing check lint." } }],
    });
  });
});

describe("MCP conformance suite 0.1.16 against a served registry (auth: none)", () => {
  for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
    it(`passes ${scenario}`, async () => {
      const spec = await served("none");
      const r = await runIn(["--import", SHIM, CONFORMANCE, "server", "--url", spec.url!, "--scenario", scenario], ROOT);
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(r.stdout);
      expect(summary, `${r.stdout}\n${r.stderr}`).not.toBeNull();
      expect(r.code, r.stdout).toBe(0);
      const [, passed, total, failed] = summary!.map(Number);
      expect(failed).toBe(0);
      expect(passed).toBe(total);
      expect(total).toBeGreaterThan(0);
    });
  }

  it("negative control: dns-rebinding-protection fails against a bare SDK server with no Host check, so the pass above is earned", async () => {
    const http = createServer((req, res) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = echoServer();
      res.on("close", () => void Promise.allSettled([transport.close(), server.close()]));
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
      const r = await runIn(["--import", SHIM, CONFORMANCE, "server", "--url", url, "--scenario", "dns-rebinding-protection"], ROOT);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("Expected HTTP 4xx for invalid Host/Origin headers, got 200");
    } finally {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });
});
