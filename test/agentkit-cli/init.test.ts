/**
 * @module test/agentkit-cli/init.test
 * `agentkit init [dir]` as a newcomer runs it: the real program writes a
 * project into a temporary directory, the packed tarball is installed there
 * offline (extracted, the other packages linked from this checkout, the
 * `.bin` links npm would make), and the project's own `npm run build`,
 * `npm test` (its module test connected over MCP in memory) and
 * `npm run serve` work as generated. Its tsconfig is the one
 * nest-cli-free.md documents. A directory that holds anything is refused
 * (exit 2, naming it and what it holds), and nothing is written there.
 * Needs `npm run build`.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked } from "../helpers/packed-package.js";
import { requireBuild, ROOT, runAgentkit, ServeProcess } from "./agentkit-process.js";

const dir = mkdtempSync(join(tmpdir(), "akt-init-"));
beforeAll(() => requireBuild());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** npm beside this node when it has one (a bare registry Node has none: the PATH's). */
const NPM = existsSync(join(process.execPath, "..", "npm")) ? join(process.execPath, "..", "npm") : "npm";

/** `npm run <script>` in `cwd` to its end: exit code and output. */
function npmRun(script: string, cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile(NPM, ["run", script], { cwd, timeout: 300_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    ),
  );
}

describe("agentkit init", () => {
  it("writes a project that builds, passes its test and serves as generated, with the documented tsconfig", async () => {
    const app = join(dir, "my-agent");
    const init = await runAgentkit(["init", app]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`wrote 7 files into ${app}`);
    expect(readdirSync(join(app, "src")).sort()).toEqual(["greet.tool.ts", "greeter.module.ts", "greeter.test.ts"]);
    const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    const ours = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    // only what the project uses (no express: it serves through agentkit serve); TypeScript 7 (the fastest); @types/node of the Node that ran init
    expect(pkg.dependencies).toEqual({
      "arc-agentkit": `^${String(ours.version)}`,
      "@modelcontextprotocol/client": ours.peerDependencies!["@modelcontextprotocol/client"],
      "@modelcontextprotocol/server": ours.peerDependencies!["@modelcontextprotocol/server"],
    });
    expect(pkg).toMatchObject({ name: "my-agent", type: "module" });
    expect(pkg.devDependencies).toEqual({
      "@types/node": `^${process.versions.node.split(".")[0]}.0.0`,
      typescript: ours.devDependencies!["typescript-7"]!.replace(/^npm:typescript@/, ""),
      vite: ours.devDependencies!.vite,
      vitest: ours.devDependencies!.vitest,
    });
    expect(pkg.devDependencies!.typescript).toMatch(/^7\./);
    // a dev loop: tsc --watch beside agentkit serve --watch, one script each
    expect(pkg.scripts).toMatchObject({
      watch: "tsc -p tsconfig.json --watch --preserveWatchOutput",
      dev: "agentkit serve dist/greeter.module.js --watch",
    });
    // the tsconfig nest-cli-free.md documents (the consumer-compilers test compiles it with TypeScript 5.9, 6.0 and 7.x)
    const documented = /```jsonc\n\/\/ tsconfig\.json\n([\s\S]*?)```/
      .exec(readFileSync(join(ROOT, "nest-cli-free.md"), "utf8"))![1]!
      .replace(/\s\/\/[^\n]*/g, "");
    expect(JSON.parse(readFileSync(join(app, "tsconfig.json"), "utf8"))).toEqual(JSON.parse(documented));
    // the generated test drives the module over MCP in memory (no port, no process): what a CLI would see
    const generatedTest = readFileSync(join(app, "src/greeter.test.ts"), "utf8");
    expect(generatedTest).toContain(`import { connectModule } from "arc-agentkit/testing";`);
    expect(generatedTest).toContain("await using client = await connectModule(GreeterModule);");
    // its first connection loads the MCP SDK: more than vitest's default 5 s on a busy machine (seen beside another full suite)
    expect(generatedTest).toMatch(/\}, 30_000\); \/\/ the first connection loads the MCP SDK/);
    const readme = readFileSync(join(app, "README.md"), "utf8");
    for (const command of ["npm install", "npm run build", "npm test", "npm run serve"]) expect(readme).toContain(`\`${command}\``);

    await installPacked(ROOT, app, {
      bins: { tsc: "typescript-7/bin/tsc", vitest: "vitest/vitest.mjs", agentkit: "arc-agentkit/dist/bin/agentkit.js" },
    });
    const build = await npmRun("build", app);
    expect(build.code, build.out).toBe(0);
    expect(existsSync(join(app, "dist/greeter.module.js"))).toBe(true);
    const test = await npmRun("test", app);
    expect(test.code, test.out).toBe(0);
    expect(test.out).toMatch(/1 passed/);

    const serve = await ServeProcess.start(["dist/greeter.module.js"], {
      cwd: app,
      bin: join(app, "node_modules/.bin/agentkit"),
      timeoutMs: 60_000,
    });
    try {
      expect(serve.stdout).toMatch(/'greeter' is serving 2 tool\(s\) at http:\/\/127\.0\.0\.1:\d+\/mcp/);
      expect(serve.stdout).toContain("mcp__greeter__greet");
    } finally {
      expect((await serve.stop("SIGINT")).code).toBe(0);
    }
  }, 600_000);

  it("--package installs this package from a local tarball or folder (before it is published): a file: spec, the path checked first", async () => {
    const tgz = join(dir, "arc-agentkit-local.tgz");
    writeFileSync(tgz, "not read by init");
    const app = join(dir, "local-package");
    const r = await runAgentkit(["init", app, "--package", tgz]);
    expect(r.code, r.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(pkg.dependencies!["arc-agentkit"]).toBe(`file:${tgz}`);
    const folder = join(dir, "local-folder");
    expect((await runAgentkit(["init", folder, "--package", ROOT])).code).toBe(0);
    const fromFolder = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(fromFolder.dependencies!["arc-agentkit"]).toBe(`file:${ROOT.replace(/\/$/, "")}`);
    const missing = join(dir, "nowhere.tgz");
    const refused = await runAgentkit(["init", join(dir, "never-written"), "--package", missing]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `agentkit init: --package '${missing}' does not exist; give the path of a packed arc-agentkit tarball (npm pack) or of its folder, nothing was written`,
    );
    expect(existsSync(join(dir, "never-written"))).toBe(false);
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "");
    const wrong = await runAgentkit(["init", join(dir, "never-written"), "--package", notes]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`--package '${notes}' is neither a .tgz file nor a folder with a package.json`);
    expect(existsSync(join(dir, "never-written"))).toBe(false);
  });

  it("refuses a directory that holds anything (exit 2, naming it and what is there) and writes nothing; a file too", async () => {
    const full = join(dir, "existing");
    mkdirSync(full);
    writeFileSync(join(full, "notes.txt"), "mine");
    const r = await runAgentkit(["init", full]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `agentkit init: '${full}' is not empty (1 entry: 'notes.txt'); give a new or empty directory (agentkit init my-agent), nothing was written`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(full)).toEqual(["notes.txt"]);
    const file = join(dir, "existing", "notes.txt");
    expect((await runAgentkit(["init", file])).stderr).toContain(`'${file}' is a file, not a directory`);
    const extra = await runAgentkit(["init", "a", "b"]);
    expect(extra.code).toBe(2);
    // The stray argument is not echoed (it may be a secret typed in the wrong place).
    expect(extra.stderr).toContain(
      "agentkit init: unexpected extra argument #2 (not repeated here: it may be a secret typed in the wrong place); give one directory: agentkit init [dir]",
    );
    expect(extra.stderr).not.toContain("'b'");
  });

  it("--help names exactly the packages the written package.json holds", async () => {
    const app = join(dir, "help-check");
    expect((await runAgentkit(["init", app])).code).toBe(0);
    const written = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    const names = [...Object.keys(written.dependencies!), ...Object.keys(written.devDependencies!)].sort();
    const help = (await runAgentkit(["init", "--help"])).stdout;
    const listed = /package\.json \(([^)]*)\)/.exec(help.replace(/\s+/g, " "))![1]!.split(/[,;] /).sort();
    expect(listed).toEqual(names);
  });
});
