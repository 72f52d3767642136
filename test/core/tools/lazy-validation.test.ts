/**
 * @module test/core/tools/lazy-validation.test
 * The validation libraries load on first use, not when the package is
 * imported: a cold `import("arc-agentkit")` in a fresh Node process loads none
 * of class-validator, class-transformer, class-validator-jsonschema, ajv,
 * ajv-formats (nor class-validator's own dependencies); a tool with a JSON
 * Schema input loads ajv, and a DTO tool validating a call loads
 * class-validator: the one copy the app's own `import "class-validator"`
 * loaded, so the decorators the app applied are the ones checked.
 */
import { fileURLToPath } from "node:url";
import { beforeAll, expect, it } from "vitest";
import { buildIfMissing } from "../../helpers/build-if-missing.js";
import { runNode } from "../../helpers/procs.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const LIBRARIES = [
  "class-validator",
  "class-transformer",
  "class-validator-jsonschema",
  "ajv",
  "ajv-formats",
  "validator",
  "libphonenumber-js",
];

/** A program for a fresh process: prints, after each stage, the packages under node_modules that are loaded (CommonJS cache). */
const PROGRAM = `
import { createRequire } from "node:module";
const cache = createRequire(process.cwd() + "/").cache;
const loaded = () => [...new Set(Object.keys(cache).map((k) => k.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1]).filter(Boolean))].sort();
const stages = {};
const { tool } = await import("arc-agentkit");
const { makeTestCtx } = await import("arc-agentkit/testing");
stages.imported = loaded();
const echo = tool({ name: "echo", description: "Echoes.", sideEffecting: false, input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }, ({ text }) => text);
stages.jsonSchemaTool = loaded();
const { IsString, MinLength } = await import("class-validator");
class Named {}
IsString()(Named.prototype, "name");
MinLength(3)(Named.prototype, "name");
const named = tool({ name: "named", description: "Greets.", sideEffecting: false, input: Named }, ({ name }) => "hi " + name);
const ctx = makeTestCtx();
const answers = [await echo.run({ text: "x" }, ctx), await named.run({ name: "Ada" }, ctx)];
const refused = await named.run({ name: "Al" }, ctx).then(() => "ran", (e) => e.constructor.name + ": " + e.message);
stages.validated = loaded();
stages.copies = Object.keys(cache).filter((k) => /node_modules\\/class-validator\\/[^/]+\\/index\\.js$/.test(k)).map((k) => k.slice(k.indexOf("node_modules")));
console.log(JSON.stringify({ stages, answers, refused }));
`;

beforeAll(() => buildIfMissing(ROOT, ["dist/index.js", "dist/testing/index.js"]), 300_000);

it("a cold import loads no validation library; the first JSON Schema tool loads ajv; a DTO call loads the app's one class-validator", async () => {
  const r = await runNode(["--input-type=module", "-e", PROGRAM], { cwd: ROOT, ms: 60_000 });
  expect(r.stderr).toBe("");
  const out = JSON.parse(r.stdout) as { stages: Record<string, string[]>; answers: unknown[]; refused: string };
  expect(out.stages.imported!.filter((p) => LIBRARIES.includes(p))).toEqual([]);
  expect(out.stages.jsonSchemaTool).toEqual(expect.arrayContaining(["ajv", "ajv-formats"]));
  expect(out.stages.jsonSchemaTool).not.toContain("class-validator");
  expect(out.stages.validated).toEqual(expect.arrayContaining(["class-validator", "class-transformer", "class-validator-jsonschema"]));
  expect(out.stages.copies).toEqual(["node_modules/class-validator/cjs/index.js"]);
  expect(out.answers).toEqual(["x", "hi Ada"]);
  expect(out.refused).toMatch(/^ToolArgumentError: .*name/);
}, 90_000);
