/**
 * @module test/models/entry-gating.test
 * `arc-agentkit/models` without its optional peers: importing it works;
 * constructing a provider throws `MissingPeerError` (code `missing_peer`) naming the install
 * line. Proven in a scratch project (test/helpers/scratch-project.ts) holding
 * the built package and every dependency except the withheld SDKs.
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runIn, scratchProject } from "../helpers/scratch-project.js";
import { NODE, ROOT } from "../mcp-client/support.js";

const SDKS = ["@anthropic-ai/sdk", "openai"];
let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

type Outcome = { imported: boolean; anthropic?: Record<string, unknown>; openai?: Record<string, unknown> };
const PROBE = `
const out = {};
try {
  const m = await import("arc-agentkit/models");
  out.imported = true;
  for (const [k, make] of [["anthropic", () => new m.AnthropicLLM({ apiKey: "k" })], ["openai", () => new m.OpenAILLM({ apiKey: "k" })]]) {
    try { make(); out[k] = { constructed: true }; }
    catch (e) { out[k] = { name: e.name, code: e.code, message: e.message, installLine: e.installLine, agentkit: e instanceof (await import("arc-agentkit")).AgentkitError }; }
  }
} catch (e) { out.imported = false; out.error = String(e); }
console.log(JSON.stringify(out));`;

describe("entry gating of arc-agentkit/models", () => {
  it("without the SDKs: the import works, and each provider names its install line when constructed", () => {
    const out = runIn<Outcome>(NODE, (scratch = scratchProject(ROOT, SDKS)), PROBE);
    expect(out.imported).toBe(true);
    expect(out.anthropic).toMatchObject({
      name: "MissingPeerError",
      code: "missing_peer",
      installLine: "npm install @anthropic-ai/sdk@1.14.0",
      agentkit: true,
    });
    expect(out.anthropic!.message).toContain("Install it with: npm install @anthropic-ai/sdk@1.14.0");
    expect(out.openai).toMatchObject({ name: "MissingPeerError", code: "missing_peer", installLine: "npm install openai@7.59.0" });
    expect(out.openai!.message).toContain("npm install openai@7.59.0");
  });

  it("control: with the SDKs present the same probe constructs both", () => {
    const out = runIn<Outcome>(NODE, (scratch = scratchProject(ROOT, [])), PROBE);
    expect(out).toEqual({ imported: true, anthropic: { constructed: true }, openai: { constructed: true } });
  });
});
