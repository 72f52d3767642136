/**
 * @module test/build/api-report.test
 * The public surface on purpose: `npm run lint` runs `scripts/api-report.mjs
 * --check`, which compares one report per entry point (`api/<entry>.api.md`)
 * with what the type checker reads from src/. The checked-in reports are
 * current, and a stale, missing or orphaned report fails the check, naming
 * the file. A private or protected member (a constructor or a static too)
 * is not reported as callable: a class built by a static factory shows
 * `private constructor`, without its internal parameters.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = join(ROOT, "scripts/api-report.mjs");

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the report script from the repository root with `args`. */
function apiReport(args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr });
    });
  });
}

let scratch: string | undefined;

afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A copy of the checked-in api/ folder to plant a change in. */
async function reportsCopy(): Promise<string> {
  scratch = await mkdtemp(join(tmpdir(), "agentkit-api-report-"));
  await cp(join(ROOT, "api"), scratch, { recursive: true });
  return scratch;
}

describe("the API report per entry point, checked by npm run lint", () => {
  it("npm run lint runs the check, and there is one report per entry point of package.json", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string>; exports: Record<string, unknown> };
    expect(pkg.scripts.lint).toContain("npm run lint:api");
    expect(pkg.scripts["lint:api"]).toBe("node scripts/api-report.mjs --check");
    const entries = Object.keys(pkg.exports).filter((key) => key !== "./package.json");
    const reports = (await readdir(join(ROOT, "api"))).filter((name) => name.endsWith(".api.md"));
    expect(reports.sort()).toEqual(entries.map((key) => (key === "." ? "index" : key.slice(2).replace(/\//g, "-")) + ".api.md").sort());
  });

  it("the checked-in reports match src/ (what lint checks)", async () => {
    const ran = await apiReport(["--check"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain("reports up to date");
  }, 120_000);

  it("a stale report, a missing one and one no entry point writes each fail the check, by file", async () => {
    const dir = await reportsCopy();
    const mcp = join(dir, "mcp.api.md");
    await writeFile(mcp, (await readFile(mcp, "utf8")).replace(/^interface (\w+)$/m, "interface $1Renamed"));
    await rm(join(dir, "cli.api.md"));
    await writeFile(join(dir, "gone.api.md"), "# API report: `arc-agentkit/gone`\n");
    const ran = await apiReport(["--check", "--dir", dir]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(`${mcp}: stale`);
    expect(ran.stderr).toContain(`${join(dir, "cli.api.md")}: missing`);
    expect(ran.stderr).toContain(`${join(dir, "gone.api.md")}: no entry point of package.json writes this report`);
    expect(ran.stderr).toContain("node scripts/api-report.mjs");
  }, 120_000);

  it("a private constructor or static is not reported as public: MCPClient, ApprovalInbox and FakeLLM are built by their static factories", async () => {
    scratch = await mkdtemp(join(tmpdir(), "agentkit-api-report-"));
    const ran = await apiReport(["--dir", scratch]);
    expect(ran.code, ran.stderr).toBe(0);
    /** The lines of one class in a written report, up to the blank line after it. */
    const block = async (file: string, head: string): Promise<string[]> => {
      const lines = (await readFile(join(scratch!, file), "utf8")).split("\n");
      const at = lines.indexOf(head);
      expect(at, `${head} in ${file}`).toBeGreaterThanOrEqual(0);
      const end = lines.indexOf("", at);
      return lines.slice(at, end);
    };
    for (const [file, head, factory] of [
      ["mcp.api.md", "class MCPClient implements AsyncDisposable", "  static open:"],
      ["askers.api.md", "class ApprovalInbox implements AsyncDisposable", "  static start:"],
      ["testing.api.md", "class FakeLLM implements LLM", "  static script:"],
    ] as const) {
      const lines = await block(file, head);
      expect(lines[1], head).toBe("  private constructor");
      expect(lines.filter((l) => l.startsWith("  constructor(")), head).toEqual([]);
      expect(lines.some((l) => l.startsWith(factory)), head).toBe(true);
    }
    // A private static helper (ToolArgumentError.format) is not listed either.
    const toolArgumentError = await block("index.api.md", "class ToolArgumentError extends AgentkitError");
    expect(toolArgumentError.filter((l) => l.includes("static format"))).toEqual([]);
    // An optional method is listed, marked optional (its type includes undefined, which has no call signature).
    expect((await block("askers.api.md", "interface RunStore")).filter((l) => l.startsWith("  appendRunSteps?("))).toHaveLength(1);
  }, 120_000);
});
