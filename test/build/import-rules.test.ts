/**
 * @module test/build/import-rules.test
 * The import rules `npm run lint` enforces (.dependency-cruiser.mjs) can fail.
 * A scratch tree shaped like src/ is cruised by the real `depcruise` CLI with
 * the repository's own config, as lint runs it: first a tree whose every edge
 * is allowed (no violation: the rules do not fire on layering they permit),
 * then the same tree with one planted violation per rule (each reported, by
 * rule, importer and imported file, and the run exits non-zero). The core's
 * own rows (contracts and util at the bottom, agents near the top) are planted
 * with the folder-level cycles the core once had.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DEPCRUISE = join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
const CONFIG = join(ROOT, ".dependency-cruiser.mjs");

/** A tree whose every edge the rules allow, one file or two per layer. */
const LAYERED: Record<string, string> = {
  "src/keys.ts": `export const KEY = "agentkit:k";\n`,
  "src/context/ctx.ts": `export interface Ctx { readonly id: string }\n`,
  "src/tools/tool.ts": `import type { Ctx } from "../context/ctx.js";\nexport interface Tool { run(ctx: Ctx): void }\n`,
  "src/agents/llm.ts": `import type { Ctx } from "../context/ctx.js";\nexport interface LLM { ctx?: Ctx }\n`,
  "src/util/format.ts": `export const quoted = (s: string): string => "'" + s + "'";\n`,
  "src/contracts/asker.ts": `export interface Asker { ask(q: string): Promise<string> }\n`,
  "src/errors/options.error.ts": `import { quoted } from "../util/format.js";\nexport class OptionsError extends Error { constructor(o: string) { super(quoted(o)); } }\n`,
  "src/options/check.ts": `import { OptionsError } from "../errors/options.error.js";\nimport { quoted } from "../util/format.js";\nexport const check = (o: string): string => { if (!o) throw new OptionsError(quoted(o)); return o; };\n`,
  "src/prompts/prompt.ts": `import { check } from "../options/check.js";\nexport const prompt = (s: string): string => check(s);\n`,
  "src/gate/gate.ts": `import type { Asker } from "../contracts/asker.js";\nimport type { Ctx } from "../context/ctx.js";\nexport const gate = (a: Asker, c: Ctx): unknown => [a, c];\n`,
  "src/memory/memory.ts": `import type { Ctx } from "../context/ctx.js";\nexport const remember = (c: Ctx): string => c.id;\n`,
  "src/agents/agent.ts": `import { gate } from "../gate/gate.js";\nimport type { Tool } from "../tools/tool.js";\nimport type { Asker } from "../contracts/asker.js";\nexport const agent = (t: Tool, a: Asker): unknown => [gate, t, a];\n`,
  "src/testing/fake.ts": `import type { LLM } from "../agents/llm.js";\nimport { agent } from "../agents/agent.js";\nexport const fake = (l: LLM): unknown => [l, agent];\n`,
  "src/mcp/di/in-memory.ts": `import type { Served } from "../server.js";\nexport const connectModule = (): Served | undefined => undefined;\n`,
  "src/testing/index.ts": `export { fake } from "./fake.js";\nexport { connectModule } from "../mcp/di/in-memory.js";\n`,
  "src/index.ts": `export { KEY } from "./keys.js";\nexport type { Tool } from "./tools/tool.js";\nexport type { LLM } from "./agents/llm.js";\n`,
  "src/wire/names.ts": `import { KEY } from "../keys.js";\nexport const qualified = (s: string): string => KEY + s;\n`,
  "src/listener/listener.ts": `import type { Request } from "express";\nimport { qualified } from "../wire/names.js";\nexport const route = (r: Request): string => qualified(r.path);\n`,
  "src/mcp/server.ts": `import type { Server } from "@modelcontextprotocol/sdk/server/index.js";\nimport type { Tool } from "../tools/tool.js";\nimport { route } from "../listener/listener.js";\nexport type Served = { server: Server; tool: Tool; route: typeof route };\n`,
  "src/cli/cognition.ts": `import type { Served } from "../mcp/server.js";\nimport { qualified } from "../wire/names.js";\nexport const cli = (s: Served): string => qualified(String(s));\n`,
  "src/models/model.ts": `import type { LLM } from "../agents/llm.js";\nimport type { Served } from "../mcp/server.js";\nexport type Model = LLM & { served?: Served };\n`,
  "src/askers/asker.ts": `import { route } from "../listener/listener.js";\nexport const ask = route;\n`,
  "src/otel/tracer.ts": `import type { Ctx } from "../context/ctx.js";\nexport const trace = (c: Ctx): string => c.id;\n`,
  "src/express/router.ts": `import type { Served } from "../mcp/server.js";\nimport { route } from "../listener/listener.js";\nexport type Hosted = { served: Served; route: typeof route };\n`,
  "src/bin/main.ts": `import { cli } from "../cli/cognition.js";\nimport type { Model } from "../models/model.js";\nimport { ask } from "../askers/asker.js";\nimport { KEY } from "../index.js";\nexport const main = (m: Model): unknown => [cli, ask, KEY, m];\n`,
};

interface Planted {
  rule: string;
  from: string;
  to: string;
}

/** One violation per rule, each in a file of its own (or one changed line), and what lint must say about it. */
const PLANTED: { files: Record<string, string>; expected: Planted[] } = {
  files: {
    // The shape of the cycle the package had: llm -> tool -> run-context -> llm, all `import type`.
    "src/agents/llm.ts": `import type { Tool } from "../tools/tool.js";\nexport interface LLM { tools?: Tool[] }\n`,
    "src/context/ctx.ts": `import type { LLM } from "../agents/llm.js";\nexport interface Ctx { readonly id: string; llm?: LLM }\n`,
    "src/memory/remote.ts": `import type { Served } from "../mcp/server.js";\nexport type Remote = Served;\n`,
    "src/wire/upward.ts": `import { route } from "../listener/listener.js";\nexport const up = route;\n`,
    "src/listener/upward.ts": `import type { Served } from "../mcp/server.js";\nexport type Up = Served;\n`,
    "src/mcp/upward.ts": `import { cli } from "../cli/cognition.js";\nexport const up = cli;\n`,
    "src/cli/sibling.ts": `import type { Model } from "../models/model.js";\nexport type Sib = Model;\n`,
    "src/models/sibling.ts": `import { ask } from "../askers/asker.js";\nexport const sib = ask;\n`,
    "src/askers/program.ts": `import { main } from "../bin/main.js";\nexport const up = main;\n`,
    "src/otel/reach.ts": `import type { Served } from "../mcp/server.js";\nexport type Reach = Served;\n`,
    "src/express/sibling.ts": `import { trace } from "../otel/tracer.js";\nexport const sib = trace;\n`,
    "src/util/peer.ts": `export const load = async (): Promise<unknown> => (await import("express")).default;\n`,
    "src/prompts/peer.ts": `import type { Tool } from "@modelcontextprotocol/sdk/types.js";\nexport type McpTool = Tool;\n`,
    "src/errors/missing.ts": `export { gone } from "./nowhere.js";\n`,
    // The three folder-level cycles the core had (util <-> errors, context <-> agents above, gate <-> agents),
    // a sibling import on one row, and one upward import from each other row.
    "src/util/upward.ts": `import { OptionsError } from "../errors/options.error.js";\nexport const up = OptionsError;\n`,
    "src/errors/upward.ts": `import { check } from "../options/check.js";\nexport const up = check;\n`,
    "src/options/upward.ts": `import type { Ctx } from "../context/ctx.js";\nexport type Up = Ctx;\n`,
    "src/gate/upward.ts": `import type { LLM } from "../agents/llm.js";\nexport type Up = LLM;\n`,
    "src/memory/sibling.ts": `import type { Tool } from "../tools/tool.js";\nexport type Sib = Tool;\n`,
    "src/agents/upward.ts": `import { fake } from "../testing/fake.js";\nexport const up = fake;\n`,
    "src/stray/helper.ts": `import { KEY } from "../keys.js";\nexport const stray = KEY;\n`,
    // Two folders inside one layer that import each other (the shape mcp/serve <-> mcp/loopback had: an SDK loader
    // living in a feature folder), the one way back type-only.
    "src/mcp/serve/serve.ts": `import { listen } from "../loopback/listen.js";\nexport const serve = listen;\n`,
    "src/mcp/serve/sdk.ts": `export const sdk = (): string => "sdk";\n`,
    "src/mcp/loopback/listen.ts": `import type { sdk } from "../serve/sdk.js";\nexport const listen = (s?: typeof sdk): unknown => s;\n`,
    // The testing entry point imports connectModule from the MCP layer, and nothing else above the core.
    "src/testing/index.ts": `export { fake } from "./fake.js";\nexport { connectModule } from "../mcp/di/in-memory.js";\nexport type { Served } from "../mcp/server.js";\n`,
  },
  expected: [
    { rule: "no-circular", from: "src/agents/llm.ts", to: "src/tools/tool.ts" },
    { rule: "core-order-context-prompts-records", from: "src/context/ctx.ts", to: "src/agents/llm.ts" },
    { rule: "core-order-util-contracts-control-types-keys", from: "src/util/upward.ts", to: "src/errors/options.error.ts" },
    { rule: "core-order-errors", from: "src/errors/upward.ts", to: "src/options/check.ts" },
    { rule: "core-order-options", from: "src/options/upward.ts", to: "src/context/ctx.ts" },
    { rule: "core-order-tools-memory-gate", from: "src/gate/upward.ts", to: "src/agents/llm.ts" },
    { rule: "core-order-tools-memory-gate", from: "src/memory/sibling.ts", to: "src/tools/tool.ts" },
    { rule: "core-order-agents", from: "src/agents/upward.ts", to: "src/testing/fake.ts" },
    { rule: "core-imports-core-only", from: "src/memory/remote.ts", to: "src/mcp/server.ts" },
    { rule: "testing-entry-imports-connect-module-only", from: "src/testing/index.ts", to: "src/mcp/server.ts" },
    { rule: "wire-imports-core-only", from: "src/wire/upward.ts", to: "src/listener/listener.ts" },
    { rule: "listener-imports-wire-and-core", from: "src/listener/upward.ts", to: "src/mcp/server.ts" },
    { rule: "mcp-imports-listener-wire-core", from: "src/mcp/upward.ts", to: "src/cli/cognition.ts" },
    { rule: "cli-not-siblings", from: "src/cli/sibling.ts", to: "src/models/model.ts" },
    { rule: "models-not-siblings", from: "src/models/sibling.ts", to: "src/askers/asker.ts" },
    { rule: "askers-not-siblings", from: "src/askers/program.ts", to: "src/bin/main.ts" },
    { rule: "otel-not-siblings", from: "src/otel/reach.ts", to: "src/mcp/server.ts" },
    { rule: "express-not-siblings", from: "src/express/sibling.ts", to: "src/otel/tracer.ts" },
    { rule: "core-no-serving-or-model-peer", from: "src/util/peer.ts", to: "node_modules/express/index.js" },
    { rule: "core-no-serving-or-model-peer", from: "src/prompts/peer.ts", to: "node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts" },
    { rule: "not-to-unresolvable", from: "src/errors/missing.ts", to: "./nowhere.js" },
    { rule: "src-file-in-a-layer", from: "src/stray/helper.ts", to: "src/keys.ts" },
    // A folder-level cycle names folders, once from each side.
    { rule: "no-folder-cycle", from: "src/mcp/loopback", to: "src/mcp/serve" },
    { rule: "no-folder-cycle", from: "src/mcp/serve", to: "src/mcp/loopback" },
  ],
};

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

let scratch: string | undefined;

afterEach(async () => {
  // The node_modules link is removed as a link; its target is untouched.
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** Write `files` into a fresh scratch project that resolves packages through the repository's node_modules. */
async function scratchTree(files: Record<string, string>): Promise<string> {
  scratch = await mkdtemp(join(tmpdir(), "agentkit-depcruise-"));
  await symlink(join(ROOT, "node_modules"), join(scratch, "node_modules"), "dir");
  await writeFile(join(scratch, "package.json"), JSON.stringify({ name: "depcruise-fixture", private: true, type: "module" }));
  await writeFile(join(scratch, "tsconfig.build.json"), await readFile(join(ROOT, "tsconfig.build.json"), "utf8"));
  await writeFile(join(scratch, "tsconfig.base.json"), await readFile(join(ROOT, "tsconfig.base.json"), "utf8"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(scratch, path)), { recursive: true });
    await writeFile(join(scratch, path), text);
  }
  return scratch;
}

/** Run `depcruise src` with the repository's config in `cwd`, exactly as `npm run lint` does, plus `extra` arguments. */
function depcruise(cwd: string, extra: string[] = []): Promise<Ran> {
  const args = [DEPCRUISE, "src", "--config", CONFIG, ...extra];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** The violations of a JSON report, one per (rule, importer, imported). */
async function violations(cwd: string): Promise<Planted[]> {
  const ran = await depcruise(cwd, ["--output-type", "json"]);
  const report = JSON.parse(ran.stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  // The scratch tree's node_modules is a link, so a package resolves to its real path: compare from node_modules/ on.
  return report.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to.replace(/^.*?\/(node_modules\/)/, "$1") }));
}

/** Sort violations so two lists compare regardless of report order. */
const sorted = (vs: Planted[]): Planted[] => [...vs].sort((a, b) => `${a.rule} ${a.from}`.localeCompare(`${b.rule} ${b.from}`));

describe("the import rules npm run lint enforces", () => {
  it("npm run lint runs depcruise over src with the repository's config", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.lint).toMatch(/(^|&& )depcruise src( |$)/);
  });

  it("a tree layered as DESIGN.md says (bin over cli/models/askers over mcp over listener/wire over core) passes", async () => {
    const tree = await scratchTree(LAYERED);
    const ran = await depcruise(tree);
    expect(ran.stdout + ran.stderr).toContain("no dependency violations found");
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
  }, 60_000);

  it("one planted violation per rule, type-only and dynamic imports included: each is reported and lint fails", async () => {
    const tree = await scratchTree({ ...LAYERED, ...PLANTED.files });
    expect(sorted(await violations(tree))).toEqual(sorted(PLANTED.expected));
    // Lint's own run (the default "err" output) fails, with one error per planted violation, each named by rule.
    const ran = await depcruise(tree);
    expect(ran.code).toBe(PLANTED.expected.length);
    for (const rule of new Set(PLANTED.expected.map((v) => v.rule))) expect(ran.stdout).toContain(`error ${rule}:`);
  }, 90_000);
});
