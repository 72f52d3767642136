/**
 * @module test/build/consumer-compilers.test
 * The packed package's declarations under every TypeScript a user has: 5.9,
 * 6.0 (whose `types` default is `[]`) and 7.x (a native binary, spawned
 * directly), each with `skipLibCheck: false`, in a consumer project that
 * extracted the tarball `npm pack` makes. Two settings: the tsconfig
 * nest-cli-free.md documents (read from that page), importing every entry
 * point; and the bare `lib: ["ES2022"]` with Node's types, importing every
 * entry point too (SDK 1.x's declarations needed the DOM type `HeadersInit`;
 * the SDK v2 packages the package now uses do not).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerOfTarball } from "../helpers/packed-package.js";
import { runNode, runProgram, type NodeRun } from "../helpers/procs.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
/** Every entry point with types, as its import specifier. */
const ENTRIES = Object.entries(PACKAGE.exports).flatMap(([sub, target]) => (typeof target === "object" && target.types ? [`arc-agentkit${sub.slice(1)}`] : []));

/** The compilers: the TypeScript 5.9 and 6.0 scripts run by this node; 7.x's native binary spawned directly. */
const COMPILERS: Record<string, (args: string[], cwd: string) => Promise<NodeRun>> = {
  "5.9": (args, cwd) => runNode([join(ROOT, "node_modules/typescript/bin/tsc"), ...args], { cwd, ms: 300_000 }),
  "6.0": (args, cwd) => runNode([join(ROOT, "node_modules/typescript-6/bin/tsc"), ...args], { cwd, ms: 300_000 }),
  "7.x": (args, cwd) => runProgram(join(ROOT, `node_modules/@typescript/typescript-${process.platform}-${process.arch}/lib/tsc`), args, { cwd, ms: 300_000 }),
};

/** The tsconfig in nest-cli-free.md (its one jsonc block), comments dropped. */
function documentedTsconfig(): { compilerOptions: Record<string, unknown> } {
  const page = readFileSync(join(ROOT, "nest-cli-free.md"), "utf8");
  const block = /```jsonc\n\/\/ tsconfig\.json\n([\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error("nest-cli-free.md has no ```jsonc // tsconfig.json block");
  return JSON.parse(block.replace(/\s\/\/[^\n]*/g, "")) as { compilerOptions: Record<string, unknown> };
}

let dir: string;
beforeAll(async () => {
  dir = await consumerOfTarball(ROOT, ["typescript", "typescript-6", "typescript-7"]);
  mkdirSync(join(dir, "src"));
  const importAll = (specifiers: string[]) => [...specifiers.map((s, i) => `import * as entry${i} from "${s}";`), `export const entries = [${specifiers.map((_, i) => `entry${i}`).join(", ")}];`, ""].join("\n");
  writeFileSync(join(dir, "src/all.ts"), importAll(ENTRIES));
  const documented = documentedTsconfig();
  const bare = { target: "ES2022", lib: ["ES2022"], types: ["node"], module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, experimentalDecorators: true, emitDecoratorMetadata: true };
  const project = (options: Record<string, unknown>, file: string) => JSON.stringify({ compilerOptions: { ...options, noEmit: true, preserveSymlinks: true }, files: [`src/${file}`] });
  writeFileSync(join(dir, "tsconfig.documented.json"), project(documented.compilerOptions, "all.ts"));
  writeFileSync(join(dir, "tsconfig.bare.json"), project(bare, "all.ts"));
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** tsc's diagnostics (its stdout), one a line, each cut to its first 200 characters. */
const diagnostics = (r: NodeRun): string[] => r.stdout.split("\n").filter((l) => /error TS\d+/.test(l)).map((l) => l.slice(0, 200));

describe("the packed package's declarations with skipLibCheck: false", () => {
  it("the documented tsconfig says skipLibCheck: false and names Node's types", () => {
    expect(documentedTsconfig().compilerOptions).toMatchObject({ skipLibCheck: false, types: ["node"], experimentalDecorators: true, emitDecoratorMetadata: true });
    expect(ENTRIES).toEqual(expect.arrayContaining(["arc-agentkit", "arc-agentkit/testing", "arc-agentkit/mcp", "arc-agentkit/cli", "arc-agentkit/models", "arc-agentkit/askers"]));
  });

  for (const [version, tsc] of Object.entries(COMPILERS)) {
    it(`TypeScript ${version}: every entry point under the documented tsconfig and under lib ES2022`, async () => {
      const v = await tsc(["--version"], dir);
      expect(v.stdout).toMatch(new RegExp(`^Version ${version.replace(".x", "").replace(".", "\\.")}`));
      const documented = await tsc(["-p", "tsconfig.documented.json"], dir);
      expect(diagnostics(documented), "documented tsconfig").toEqual([]);
      expect(documented.code).toBe(0);
      const bare = await tsc(["-p", "tsconfig.bare.json"], dir);
      expect(diagnostics(bare), "lib ES2022").toEqual([]);
      expect(bare.code).toBe(0);
    }, 900_000);
  }
});
