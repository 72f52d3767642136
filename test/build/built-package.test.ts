/**
 * @module test/build/built-package.test
 * The injection proof from the BUILT package: code compiled by the real `tsc`
 * (not vite/Oxc), run under plain `node`, importing "arc-agentkit" from
 * dist/. Builds first only when the build output is missing (`npm test`
 * builds before running the suite).
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfMissing } from "../helpers/build-if-missing.js";
import { runNode as runNodeIn, type NodeRun } from "../helpers/procs.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = join(ROOT, "test/build/fixtures/injection-by-type.ts");
const BUILT = ["dist/index.js", "dist/testing/index.js", "build/samples/quickstart.js"];

/** Run `node ...args` in `cwd` to completion (its process group SIGKILLed after a generous 120 s). */
const runNode = (args: string[], cwd: string): Promise<NodeRun> => runNodeIn(args, { cwd, ms: 120_000 });

let scratch: string | undefined;

beforeAll(() => buildIfMissing(ROOT, BUILT), 300_000);

afterAll(async () => {
  // Symlinks inside are removed as links; their targets are untouched.
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the built package under plain node", () => {
  it("npm start's main job (build/samples/quickstart.js, built by tsc) injects its service by type", async () => {
    // Part 1 (the core) is checked line by line here; the later parts' output has its own tests.
    const ran = await runNode(["build/samples/quickstart.js"], ROOT);
    const lines = ran.stdout.split("\n");
    const expected = [
      "tools: [ 'run_check' ]",
      `  run_check({"name":"lint","verbose":true}) -> tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']`,
      `  run_check({"name":"lint"}) -> lint:lax:ok`,
      "output: lint passed. | stopReason: complete",
      "service saw: [ 'lint' ]",
    ];
    const header = lines.findIndex((l) => /^== 1\. Core: @Tool classes with injected services/.test(l));
    expect(header, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(lines[header + 1]).toBe("   code: samples/quickstart.ts (this file); every later part names its own");
    expect(lines.slice(header + 2, header + 2 + expected.length)).toEqual(expected);
    // Every later part names the sample file behind it, right under its title, and that file exists.
    const named = lines.flatMap((l, i) => (/^== [2-8]\. /.test(l) ? [lines[i + 1]!] : []));
    expect(named).toHaveLength(7);
    for (const line of named) {
      const file = /^ {3}code: (samples\/[a-z-]+\.ts)$/.exec(line)?.[1];
      expect(file, line).toBeDefined();
      expect(existsSync(join(ROOT, file!)), file).toBe(true);
    }
    // The printed fields a newcomer could not read are explained in a few words.
    for (const word of ["callsSeen: how many tool calls", "caps: the capability labels", "promptsSeen: permission prompts"]) expect(ran.stdout).toContain(word);
    expect(ran.stdout).not.toContain("two timeouts that do not read the same");
    // The whole tour: every part ran to completion (each part's output has its own test).
    expect(ran.code, ran.stderr).toBe(0);
    expect(lines.filter((l) => /^== \d+\. /.test(l)).map((l) => l.slice(0, 5))).toEqual(["== 1.", "== 2.", "== 3.", "== 4.", "== 5.", "== 6.", "== 7.", "== 8."]);
    expect(ran.stdout).not.toContain("(skipped:");
    expect(lines).toContain("All parts ran.");
  }, 150_000); // the tour spawns eight samples: bounded by runNode's 120 s, not the 30 s default

  it("the compiled sample carries design:paramtypes metadata (tsc emitDecoratorMetadata)", async () => {
    const js = await readFile(join(ROOT, "build/samples/quickstart.js"), "utf8");
    expect(js).toMatch(/__metadata\("design:paramtypes", \[CheckService\]\)/);
  });

  it("a @Tool class compiled by tsc gets its constructor dependency by type from dist/", async () => {
    scratch = await mkdtemp(join(tmpdir(), "agentkit-build-"));
    const out = join(scratch, "out");
    // Compile the fixture with tsc itself (the same options the package builds with).
    const tsc = await runNode(
      [
        join(ROOT, "node_modules/typescript/bin/tsc"),
        "--outDir", out,
        "--rootDir", join(ROOT, "test/build/fixtures"),
        "--target", "ES2022",
        "--module", "NodeNext",
        "--moduleResolution", "NodeNext",
        "--experimentalDecorators",
        "--emitDecoratorMetadata",
        "--strict",
        "--skipLibCheck",
        "--types", "node",
        FIXTURE,
      ],
      ROOT,
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
    // A scratch project that sees the package and its dependencies through links, as an installed app would.
    await writeFile(join(scratch, "package.json"), JSON.stringify({ name: "agentkit-build-proof", private: true, type: "module" }));
    await mkdir(join(scratch, "node_modules"));
    await symlink(ROOT, join(scratch, "node_modules", "arc-agentkit"), "dir");
    for (const dep of ["tsyringe", "reflect-metadata", "class-validator"]) {
      await symlink(join(ROOT, "node_modules", dep), join(scratch, "node_modules", dep), "dir");
    }
    const ran = await runNode([join(out, "injection-by-type.js")], scratch);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout.trim())).toEqual({
      paramtypes: ["Greeter"],
      toolName: "greet_person",
      parameters: {
        type: "object",
        properties: { who: { type: "string" }, punctuation: { type: "string" } },
        required: ["who"],
        additionalProperties: false,
      },
      results: [
        "tool 'greet_person' call rejected: unexpected argument(s) ['loud']. Accepted arguments: ['who', 'punctuation']",
        "hello node!",
      ],
      stopReason: "complete",
      greeted: ["node"],
      rootRegistered: false,
    });
  });
});
