/**
 * @module test/cli/exports.test
 * The public surface of `arc-agentkit/cli`: the sorted export names (an
 * addition is a reviewed decision; the TOML encoders and `codexTokenEnvVar`
 * were removed on purpose: internal to the Codex projection), and an import graph free of the MCP SDK
 * and express, so the entry point works without the optional peers.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as cli from "../../src/cli/index.js";
import { declaredExports } from "../core/surface.js";

const SRC = resolve(import.meta.dirname, "../../src");

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gm)) if (!m[1]) out.push(m[2]!);
  for (const m of text.matchAll(/^\s*import\s+"([^"]+)"/gm)) out.push(m[1]!);
  return out;
}

describe("arc-agentkit/cli", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(cli).sort()).toEqual([
      "ClaudeCliCognition",
      "CodexCliCognition",
      "HookServer",
      "asCliAgents",
      "asCodexMcp",
      "hookSettings",
      "mergeCliOptions",
    ]);
  });

  it("every export the compiler sees, types included, sorted", () => {
    expect(declaredExports(fileURLToPath(new URL("../../src/cli/index.ts", import.meta.url)))).toEqual([
      "asCliAgents",
      "asCodexMcp",
      "ClaudeCliCognition",
      "type ClaudeCliOptions",
      "type ClaudeHookSettings",
      "type ClaudeSessionArgs",
      "type CliAgentDefinition",
      "type CliAgentInput",
      "type CliAgentsOptions",
      "type CliMcpServerStatus",
      "CodexCliCognition",
      "type CodexCliOptions",
      "type CodexMcpOptions",
      "type CodexMcpSource",
      "type CodexSandbox",
      "type EnvOverlay",
      "type HookRecord",
      "HookServer",
      "type HookServerOptions",
      "hookSettings",
      "type HookVerdict",
      "mergeCliOptions",
      "type PreToolUseRequest",
      "type TomlValue",
    ]);
  });

  it("loads no MCP SDK or express value, however deep", () => {
    const seen = new Set<string>();
    const bare = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of importsOf(file)) {
        if (spec.startsWith(".")) walk(join(dirname(file), spec.replace(/\.js$/, ".ts")));
        else bare.add(spec);
      }
    };
    walk(join(SRC, "cli/index.ts"));
    expect([...bare].filter((s) => s.startsWith("@modelcontextprotocol/") || s === "express")).toEqual([]);
    expect([...seen].map((f) => f.slice(SRC.length + 1)).filter((f) => f.startsWith("mcp/"))).toEqual([]);
  });
});
