/**
 * @module test/agentkit-cli/bin-link.test
 * `npx agentkit` after `npm ci`: the package depends on itself (`file:.`), so
 * npm links its own bin as node_modules/.bin/agentkit. That link, executed
 * directly (its shebang and mode, no `node` in front), prints the usage text
 * and exits 0.
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENTKIT, ROOT, killGroup, requireBuild } from "./agentkit-process.js";

beforeAll(requireBuild);

const BIN = join(ROOT, "node_modules/.bin/agentkit");

describe("node_modules/.bin/agentkit", () => {
  it("is the self-dependency's link to the built entry", () => {
    expect(realpathSync(BIN)).toBe(realpathSync(AGENTKIT));
  });

  it("--help, executed directly, prints the usage text and exits 0", async () => {
    const child = spawn(BIN, ["--help"], { cwd: ROOT, env: process.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => void killGroup(child), 30_000);
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once("error", reject);
        child.once("close", (c) => resolve(c));
      });
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toMatch(/^agentkit — serve an @McpServer module to Claude Code or Codex/);
      expect(stdout).toContain("Usage:");
      for (const c of ["agentkit serve <module-file>", "agentkit inspect [options] -- <command...>", "agentkit call <tool>"])
        expect(stdout).toContain(c);
    } finally {
      clearTimeout(timer);
      await killGroup(child);
    }
  });
});
