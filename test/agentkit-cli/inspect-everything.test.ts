/**
 * @module test/agentkit-cli/inspect-everything.test
 * `agentkit inspect` and `agentkit call` against a server we did not write:
 * the reference `@modelcontextprotocol/server-everything` over stdio.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, requireBuild, runAgentkit } from "./agentkit-process.js";
import type { InspectReport } from "../../src/bin/server-report.js";

beforeAll(requireBuild);

describe("agentkit inspect -- <server-everything>", () => {
  it("prints tools as adapted, resources, and static vs argumented prompts; stderr stays empty off a TTY", async () => {
    const r = await runAgentkit(["inspect", "--", ...EVERYTHING]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out.split("\n")[0]).toBe("server: mcp-servers/everything 2.0.0 — tools are qualified as mcp__mcp-servers_everything__<tool>");
    expect(out).toContain(
      [
        "  get-sum — Returns the sum of two numbers",
        "    qualified: mcp__mcp-servers_everything__get-sum",
        "    side-effecting: yes (as mcpTools adapts it: the server's read-only word is trusted only with trustReadOnlyHint: true)   read-only hint: yes",
        "    args: a: number (required), b: number (required)",
      ].join("\n"),
    );
    expect(out).toContain('    args: messageType: "error"|"success"|"debug" (required), includeImage: boolean');
    expect(out).toContain(
      "  get-tiny-image — Returns a tiny MCP logo image.\n    qualified: mcp__mcp-servers_everything__get-tiny-image\n    side-effecting: yes (as mcpTools adapts it: the server's read-only word is trusted only with trustReadOnlyHint: true)   read-only hint: yes\n    args: (no arguments)",
    );
    expect(out).toContain("resources (7):\n  demo://resource/static/document/architecture.md  architecture.md (text/markdown)");
    expect(out).toContain(
      "prompts (4):\n  simple-prompt  static — A prompt with no arguments\n  args-prompt  argumented (city (required), state)",
    );
  });

  it("--json prints one object of the documented shape; --prefix and --name shape the names", async () => {
    const r = await runAgentkit(["inspect", "--json", "--prefix", "ev_", "--name", "everything", "--", ...EVERYTHING]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as InspectReport;
    expect(Object.keys(report)).toEqual(["server", "tools", "resources", "prompts"]);
    expect(report.server).toEqual({
      name: "mcp-servers/everything",
      version: "2.0.0",
      qualifiedAs: "everything",
      capabilities: expect.arrayContaining(["prompts", "resources", "tools"]),
    });
    // A client advertising no capabilities sees the 13 unconditional tools.
    expect(report.tools).toHaveLength(13);
    const echo = report.tools.find((t) => t.name === "echo")!;
    expect(echo).toEqual({
      name: "echo",
      adaptedName: "ev_echo",
      qualifiedName: "mcp__everything__echo",
      description: "Echoes back the input string",
      sideEffecting: true,
      requiresApproval: false,
      readOnlyHint: true,
      agentkit: null,
      arguments: [{ name: "message", type: "string", required: true, description: "Message to echo" }],
      inputSchema: expect.objectContaining({ type: "object", required: ["message"] }),
    });
    expect(report.tools.find((t) => t.name === "toggle-simulated-logging")!.readOnlyHint).toBe(false);
    expect(report.resources).toHaveLength(7);
    expect(report.resources[0]).toEqual({
      uri: "demo://resource/static/document/architecture.md",
      name: "architecture.md",
      mimeType: "text/markdown",
      description: expect.any(String),
    });
    expect(report.prompts.map((p) => [p.name, p.kind])).toEqual([
      ["simple-prompt", "static"],
      ["args-prompt", "argumented"],
      ["completable-prompt", "argumented"],
      ["resource-prompt", "argumented"],
    ]);
    expect(report.prompts[1]!.arguments.map((a) => [a.name, a.required])).toEqual([
      ["city", true],
      ["state", false],
    ]);
  });
});

describe("agentkit call <tool> -- <server-everything>", () => {
  it("prints the result text and exits 0", async () => {
    const r = await runAgentkit(["call", "get-sum", "--args", '{"a": 2, "b": 3}', "--", ...EVERYTHING]);
    expect(r).toMatchObject({ code: 0, stdout: "The sum of 2 and 3 is 5.\n", stderr: "" });
  });

  it("marks non-text content instead of dropping it", async () => {
    const r = await runAgentkit(["call", "get-tiny-image", "--", ...EVERYTHING]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("[image content omitted]");
  });

  it("--json prints the CallToolResult unchanged", async () => {
    const r = await runAgentkit(["call", "echo", "--args", '{"message": "hi"}', "--json", "--", ...EVERYTHING]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ content: [{ type: "text", text: "Echo: hi" }] });
  });

  it("a result with isError prints the error text on stderr and exits 1", async () => {
    const r = await runAgentkit(["call", "get-resource-reference", "--args", '{"resourceType": "blob"}', "--", ...EVERYTHING]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/Invalid option: expected one of "Text"\|"Blob"/);
  });

  it("a tool the server does not have is named, with the ones it has", async () => {
    const r = await runAgentkit(["call", "get-product", "--", ...EVERYTHING]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `agentkit call: stdio server '${EVERYTHING.join(" ")}' has no tool 'get-product'. Its tools: ['echo', 'get-annotated-message', 'get-env', 'get-resource-links', 'get-resource-reference', 'get-structured-content', 'get-sum', 'get-tiny-image', 'gzip-file-as-resource', 'simulate-research-query', 'toggle-simulated-logging', 'toggle-subscriber-updates', 'trigger-long-running-operation']\n`,
    );
  });
});
