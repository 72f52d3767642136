/**
 * @module test/build/consumer-types.test
 * The published declaration files type-check in a consumer that has the
 * optional peers but not `@types/express` (express ships no types of its own),
 * with `skipLibCheck: false`, so every `.d.ts` the package brings is checked.
 * A scratch project gets a copy of package.json and dist/ as
 * node_modules/arc-agentkit (a copy, not a link: a link would resolve the
 * package's own imports from this repository's node_modules, where
 * @types/express is) and links to every other installed package except the
 * @types/express tree; `preserveSymlinks` keeps resolution inside it. A control
 * compile that imports express types directly must fail with TS7016, so the
 * passing compile is not vacuous. Builds first only when dist/ is missing.
 */
import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfMissing } from "../helpers/build-if-missing.js";
import { runNode as runNodeIn, type NodeRun } from "../helpers/procs.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
/** Every entry point the exports map publishes with types (a new entry point is covered without touching this file). */
const ENTRIES = Object.entries(PACKAGE.exports).flatMap(([sub, target]) =>
  typeof target === "object" && target.types ? [{ specifier: `arc-agentkit${sub.slice(1)}`, types: target.types.replace(/^\.\//, "") }] : [],
);
const ENTRY_TYPES = ENTRIES.map((e) => e.types);
/** @types/express and the packages only it brings in: a consumer without @types/express has none of them. */
const EXPRESS_TYPES = new Set(["express", "express-serve-static-core", "serve-static", "body-parser", "connect", "http-errors", "qs", "range-parser", "send"]);

/** Run `node ...args` in `cwd` to completion (its process group SIGKILLed after a generous 180 s). */
const runNode = (args: string[], cwd: string): Promise<NodeRun> => runNodeIn(args, { cwd, ms: 180_000 });

/**
 * A consumer's tsconfig: strict, NodeNext, every declaration file checked,
 * resolution kept inside the scratch tree. `dom` is for the MCP SDK's own
 * declarations, which name `HeadersInit` (a DOM lib type @types/node 20 does
 * not declare): any SDK consumer with skipLibCheck false needs it, so only the
 * compile of every entry point gets it; core, testing and cli are also
 * compiled without it and must not need it.
 */
function consumerTsconfig(files: string[], dom = false): string {
  return JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022", "ESNext.Disposable", ...(dom ? ["DOM"] : [])],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: false,
      preserveSymlinks: true,
      noEmit: true,
      types: ["node"],
    },
    files,
  });
}

let scratch: string | undefined;

/** The scratch consumer: the package copied in, every other installed package linked, @types/express's tree left out. */
async function consumerProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentkit-consumer-"));
  scratch = dir;
  const modules = join(dir, "node_modules");
  await mkdir(join(modules, "@types"), { recursive: true });
  const pkg = join(modules, "arc-agentkit");
  await mkdir(pkg);
  await cp(join(ROOT, "package.json"), join(pkg, "package.json"));
  await cp(join(ROOT, "dist"), join(pkg, "dist"), { recursive: true, filter: (src) => !src.endsWith(".map") });
  for (const name of await readdir(join(ROOT, "node_modules"))) {
    if (name === "arc-agentkit" || name === "@types" || name.startsWith(".")) continue;
    await symlink(join(ROOT, "node_modules", name), join(modules, name), "dir");
  }
  for (const name of await readdir(join(ROOT, "node_modules/@types"))) {
    if (!EXPRESS_TYPES.has(name)) await symlink(join(ROOT, "node_modules/@types", name), join(modules, "@types", name), "dir");
  }
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "agentkit-consumer", private: true, type: "module" }));
  await writeFile(
    join(dir, "consumer.ts"),
    [
      `import * as core from "arc-agentkit";`,
      `import * as testing from "arc-agentkit/testing";`,
      `import * as cli from "arc-agentkit/cli";`,
      `import type { ClaudeCliOptions, CodexCliOptions } from "arc-agentkit/cli";`,
      `export type Options = [core.AgentOptions, core.ToolOptions, ClaudeCliOptions, CodexCliOptions];`,
      `export const entries = [core, testing, cli];`,
      ``,
    ].join("\n"),
  );
  await writeFile(
    join(dir, "consumer-all.ts"),
    [
      ...ENTRIES.map((e, i) => `import * as entry${i} from "${e.specifier}";`),
      `import type { ApprovalServerOptions, McpServerOptions, ServeRegistryOptions } from "arc-agentkit/mcp";`,
      `export type Options = [ApprovalServerOptions, McpServerOptions, ServeRegistryOptions];`,
      `export const entries = [${ENTRIES.map((_, i) => `entry${i}`).join(", ")}];`,
      ``,
    ].join("\n"),
  );
  await writeFile(join(dir, "control.ts"), `import type { Request } from "express";\nexport type R = Request;\n`);
  await writeFile(join(dir, "tsconfig.json"), consumerTsconfig(["consumer.ts"]));
  await writeFile(join(dir, "tsconfig.all.json"), consumerTsconfig(["consumer-all.ts"], true));
  await writeFile(join(dir, "tsconfig.control.json"), consumerTsconfig(["control.ts"]));
  return dir;
}

const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

beforeAll(() => buildIfMissing(ROOT, ENTRY_TYPES), 300_000);

afterAll(async () => {
  // Links inside are removed as links; their targets are untouched.
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Type-check `project` in `dir`, listing the files read; expect no diagnostic and that `entries` came from the copied package. */
async function expectClean(dir: string, project: string, entries: string[]): Promise<void> {
  const ran = await runNode([TSC, "-p", project, "--listFiles"], dir);
  const lines = ran.stdout.split("\n").filter(Boolean);
  expect(lines.filter((l) => !l.startsWith("/")), "tsc diagnostics").toEqual([]);
  expect(ran.stderr).toBe("");
  expect(ran.code).toBe(0);
  // Each entry point (and what it imports) was read from the copy, and no express declaration was.
  for (const entry of entries) expect(lines.some((l) => l.endsWith(`/node_modules/arc-agentkit/${entry}`)), entry).toBe(true);
  expect(lines.filter((l) => /@types\/express|node_modules\/express\//.test(l))).toEqual([]);
}

describe("the published .d.ts files in a consumer without @types/express", () => {
  it("every entry point type-checks with skipLibCheck: false (and a direct express type import there is TS7016)", async () => {
    const dir = await consumerProject();
    const control = await runNode([TSC, "-p", "tsconfig.control.json"], dir);
    expect(control.stdout).toContain("error TS7016: Could not find a declaration file for module 'express'");
    expect(control.code).not.toBe(0);
    await expectClean(dir, "tsconfig.json", ["dist/index.d.ts", "dist/testing/index.d.ts", "dist/cli/index.d.ts"]);
    expect(ENTRY_TYPES).toEqual(expect.arrayContaining(["dist/index.d.ts", "dist/testing/index.d.ts", "dist/mcp/index.d.ts", "dist/cli/index.d.ts"]));
    // Every published entry point together, with the DOM lib the MCP SDK's declarations need.
    await expectClean(dir, "tsconfig.all.json", ENTRY_TYPES);
    // Generous: with skipLibCheck false the MCP SDK's zod-heavy declarations take most of it (15-90 s on a shared 2-core box).
  }, 480_000);
});
