/**
 * @module test/agentkit-cli/terminal.test
 * What changes on a terminal. The spinner: drawn on stderr while connecting,
 * only when stderr is a terminal, erased afterwards, never wider than the
 * terminal (off a TTY nothing is drawn at all: inspect-everything asserts an
 * empty stderr). And `serve --transport stdio` run by hand: it says how a CLI
 * should spawn it.
 */
import { spawn } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { AGENTKIT, EVERYTHING, MODULES, ROOT, killGroup, requireBuild } from "./agentkit-process.js";
import { shellQuote } from "../../src/wire/shell-quote.js";

beforeAll(requireBuild);

/** Run `agentkit ...args` on a pseudo-terminal `cols` wide (util-linux `script`); returns everything the terminal received. */
async function onTerminal(args: string[], cols: number): Promise<{ code: number | null; output: string }> {
  const command = `stty cols ${cols} rows 40; exec ${[process.execPath, AGENTKIT, ...args].map(shellQuote).join(" ")}`;
  const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (output += d));
  child.stdin!.end();
  try {
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    return { code, output };
  } finally {
    await killGroup(child);
  }
}

describe("the spinner on a terminal", () => {
  it("shows 'connecting to …' while the server starts, then erases its line before the result", async () => {
    const { code, output } = await onTerminal(["call", "echo", "--args", '{"message": "spun"}', "--", ...EVERYTHING], 300);
    expect(code).toBe(0);
    expect(output).toContain(`\r⠋ connecting to stdio server '${EVERYTHING.join(" ")}'…`);
    const erased = output.lastIndexOf("\r\x1b[K");
    expect(erased).toBeGreaterThan(0);
    expect(output.indexOf("Echo: spun")).toBeGreaterThan(erased);
  });

  it("cuts its text to the terminal's width, so '\\r' redraws one row", async () => {
    const { code, output } = await onTerminal(["call", "echo", "--args", '{"message": "narrow"}', "--", ...EVERYTHING], 40);
    expect(code).toBe(0);
    const frames = output.split("\r").filter((f) => f.startsWith("⠋") || f.startsWith("⠙"));
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) expect([...f].length).toBeLessThanOrEqual(40);
    expect(frames[0]).toMatch(/^⠋ connecting to stdio server 'node \/.*…$/);
  });
});

describe("agentkit serve --transport stdio on a terminal", () => {
  it("prints the --mcp-config and --allowedTools with which Claude Code spawns it, then serves until stdin ends", async () => {
    const ops = join(MODULES, "ops-module.js");
    const { code, output } = await onTerminal(["serve", ops, "--transport", "stdio"], 400);
    expect(code).toBe(0);
    const config = JSON.stringify({
      mcpServers: { engine: { type: "stdio", command: process.execPath, args: [AGENTKIT, "serve", ops, "--transport", "stdio"] } },
    });
    expect(output).toContain(
      `agentkit serve: 'engine' speaks MCP on stdin/stdout: it is the child a CLI spawns. Point Claude Code at it with:\r\n  claude --mcp-config '${config}' --strict-mcp-config --allowedTools mcp__engine__run_check\r\n`,
    );
    expect(output).toContain("agentkit serve: 'engine' stopped (stdin closed)");
  });
});
