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
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
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
      ["mcp.api.md", "class MCPClient implements AsyncDisposable", "  static start:"],
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
  it("a name the MCP SDK also exports shows why in the report: the McpServer decorator, the Tool contract", async () => {
    const mcp = await readFile(join(ROOT, "api/mcp.api.md"), "utf8");
    const index = await readFile(join(ROOT, "api/index.api.md"), "utf8");
    expect(mcp).toMatch(/^\/\/ McpServer is also @modelcontextprotocol\/server's McpServer\. MCP SDK: .+\nfunction McpServer/m);
    expect(index).toMatch(/^\/\/ Tool is also @modelcontextprotocol\/client's and @modelcontextprotocol\/server's Tool\. MCP SDK: .+/m);
  });

  it("a name the MCP SDK also exports, without an \"MCP SDK:\" paragraph in its JSDoc, fails the report, naming it", async () => {
    scratch = await mkdtemp(join(tmpdir(), "agentkit-api-report-"));
    // A project of one entry point whose `Tool` shadows the SDK's, beside this checkout's node_modules.
    await writeFile(join(scratch, "package.json"), JSON.stringify({ name: "scratch", type: "module", exports: { ".": { types: "./dist/index.d.ts" } } }));
    await cp(join(ROOT, "tsconfig.base.json"), join(scratch, "tsconfig.base.json"));
    await cp(join(ROOT, "tsconfig.build.json"), join(scratch, "tsconfig.build.json"));
    await symlink(join(ROOT, "node_modules"), join(scratch, "node_modules"), "dir");
    await mkdir(join(scratch, "src"));
    const source = (doc: string) => `/** A tool of this package.${doc} */\nexport interface Tool {\n  readonly name: string;\n}\n/** Not an SDK name. */\nexport const ours = 1;\n`;
    await writeFile(join(scratch, "src/index.ts"), source(""));
    const run = (args: string[]) =>
      new Promise<Ran>((resolve) => {
        execFile(process.execPath, [SCRIPT, ...args], { cwd: scratch, timeout: 120_000 }, (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr });
        });
      });
    const bare = await run([]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("`Tool` (arc-agentkit) is also exported by @modelcontextprotocol/client, @modelcontextprotocol/server");
    expect(bare.stderr).toContain('"MCP SDK:"');
    expect(bare.stderr).not.toContain("`ours`");

    await writeFile(join(scratch, "src/index.ts"), source("\n *\n * MCP SDK: the SDK's `Tool` is a listed tool;\n * this one is what a registry runs."));
    const explained = await run([]);
    expect(explained.code, explained.stderr).toBe(0);
    expect(await readFile(join(scratch, "api/index.api.md"), "utf8")).toContain(
      "// Tool is also @modelcontextprotocol/client's and @modelcontextprotocol/server's Tool. MCP SDK: the SDK's `Tool` is a listed tool; this one is what a registry runs.\ninterface Tool",
    );
  }, 120_000);
});
