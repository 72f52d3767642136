/**
 * @module test/agentkit-cli/serve-fence.test
 * `agentkit serve` writes credentials (`--write-mcp-json PATH`, the Codex env
 * file) with the same fence as a spec's configPath: a symlink, a directory or
 * somebody's file at the path is refused by name, and stopping removes only
 * what serve itself wrote.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { victimFile } from "../helpers/victim-file.js";
import { MODULES, ServeProcess, requireBuild, runAgentkit } from "./agentkit-process.js";

beforeAll(requireBuild);

const OPS = join(MODULES, "ops-module.js");

let dirs: string[] = [];
function scratchDir(): string {
  const d = mkdtempSync(join(tmpdir(), "agentkit-test-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe("agentkit serve --write-mcp-json PATH", () => {
  it("refuses a symlink to a victim file in one line naming PATH; the victim is untouched", async () => {
    const dir = scratchDir();
    const v = victimFile(dir);
    const path = join(dir, "mcp.json");
    symlinkSync(v.path, path);
    const r = await runAgentkit(["serve", OPS, "--write-mcp-json", path]);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`${path} is a symbolic link`);
    v.intact();
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });

  it("refuses a dangling symlink: nothing is created where it points", async () => {
    const dir = scratchDir();
    const target = join(dir, "elsewhere", "token.json");
    mkdirSync(dirname(target));
    const path = join(dir, "mcp.json");
    symlinkSync(target, path);
    const r = await runAgentkit(["serve", OPS, "--write-mcp-json", path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path} is a symbolic link`);
    expect(readdirSync(dirname(target))).toEqual([]);
  });

  it("refuses an existing file (it may be somebody's), leaving it as it was", async () => {
    const dir = scratchDir();
    const v = victimFile(dir);
    const r = await runAgentkit(["serve", OPS, "--write-mcp-json", v.path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${v.path} already exists`);
    v.intact();
  });

  it("on stop leaves a file put in place of the one it wrote", async () => {
    const dir = scratchDir();
    const path = join(dir, "mcp.json");
    await using serve = await ServeProcess.start([OPS, "--write-mcp-json", path]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    unlinkSync(path);
    writeFileSync(path, "not serve's");
    expect((await serve.stop()).code).toBe(0);
    expect(readFileSync(path, "utf8")).toBe("not serve's");
  });
});

describe("agentkit serve --codex", () => {
  it("writes the env file exclusively (0600) and on stop removes only it, not a file somebody put beside it", async () => {
    await using serve = await ServeProcess.start([OPS, "--codex"]);
    const envFile = /set -a; \. (\S+); set \+a/.exec(serve.stdout)![1]!;
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const beside = join(dirname(envFile), "notes.txt");
    writeFileSync(beside, "keep me");
    dirs.push(dirname(envFile));
    expect((await serve.stop()).code).toBe(0);
    expect(existsSync(envFile)).toBe(false);
    expect(readFileSync(beside, "utf8")).toBe("keep me");
  });
});
