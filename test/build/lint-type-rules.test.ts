/**
 * @module test/build/lint-type-rules.test
 * The type-checked rules and the `TypeError` ban in eslint.config.js can
 * fail. A scratch project (its own tsconfig, in the temp folder) is linted by
 * eslint's Node API with the repository's own config, as `npm run lint` runs
 * it: a clean file passes, a dropped promise and a `new TypeError` in src/
 * are each reported by rule and line.
 */
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CONFIG = fileURLToPath(new URL("../../eslint.config.js", import.meta.url));

const FILES: Record<string, string> = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, types: [] }, include: ["src/**/*.ts"] }),
  "src/clean.ts": [
    "export async function save(): Promise<void> {}",
    "export function handled(): void {",
    "  void save();",
    "  save().catch((err: unknown) => console.error(err));",
    "}",
    "",
  ].join("\n"),
  "src/floating.ts": ["export async function save(): Promise<void> {}", "export function dropped(): void {", "  save();", "}", ""].join("\n"),
  "src/type-error.ts": ["export function refuse(x: unknown): never {", "  throw new TypeError(`bad option ${String(x)}`);", "}", ""].join("\n"),
};

let dir: string;
let results: Map<string, ESLint.LintResult>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentkit-lint-rules-"));
  await mkdir(join(dir, "src"));
  for (const [name, text] of Object.entries(FILES)) await writeFile(join(dir, name), text);
  const eslint = new ESLint({ cwd: dir, overrideConfigFile: CONFIG });
  const linted = await eslint.lintFiles(["src/**/*.ts"]);
  results = new Map(linted.map((r) => [r.filePath.slice(dir.length + 1), r]));
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `rule@line` of each message of one planted file. */
function reported(file: string): string[] {
  const r = results.get(file);
  if (!r) throw new Error(`${file} was not linted; linted: ${[...results.keys()].join(", ")}`);
  return r.messages.map((m) => `${m.ruleId ?? m.message}@${m.line}`);
}

describe("eslint type-checked rules", () => {
  it("a file that awaits, voids or catches its promises and throws no TypeError passes", () => {
    expect(reported("src/clean.ts")).toEqual([]);
  });

  it("a floating promise fails lint (no-floating-promises)", () => {
    expect(reported("src/floating.ts")).toEqual(["@typescript-eslint/no-floating-promises@3"]);
  });

  it("new TypeError in src/ fails lint, naming OptionsError as the way out", () => {
    expect(reported("src/type-error.ts")).toEqual(["no-restricted-syntax@2"]);
    expect(results.get("src/type-error.ts")!.messages[0]!.message).toMatch(/Throw OptionsError/);
  });
});
