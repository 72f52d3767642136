/**
 * @module test/cli/claude-results.test
 * Served results within a budget, with the pinned Claude Code against the
 * kit's fake Anthropic API: a served tool returns 200,000 characters of JSON;
 * the request the model receives after the call carries at most 25,000
 * characters of it, with no truncation notice and nothing saved to a file;
 * the scripted model then reads the first record the preview left out
 * through `read_result`, byte for byte, in one call. (Claude Code shows a
 * result's `structuredContent` to the model instead of its text blocks:
 * `read_result` carries its page there too, as `text`.)
 */
import { describe, expect, it } from "vitest";
import { Agent, tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry } from "../../src/mcp/index.js";
import { hermeticClaude } from "./kit/cognitions.js";
import { FakeAnthropic, type AnthropicRequest } from "./kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";

const ROWS = Array.from({ length: 3_300 }, (_, i) => ({ id: i, name: `record-${i}`, tags: ["alpha", "beta", `t${i % 7}`] }));
const BIG = JSON.stringify(ROWS);

/** The text of the last tool_result the CLI sent in `body`. */
function lastToolResult(body: AnthropicRequest): string {
  const last = body.messages[body.messages.length - 1]!;
  const block = (last.content as Record<string, unknown>[]).find((b) => b.type === "tool_result")!;
  const content = block.content as string | Array<{ type: string; text?: string }>;
  return typeof content === "string" ? content : content.map((b) => b.text ?? "").join("\n");
}

describe("Claude Code reads a served result over budget (real binary)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("200,000 characters of JSON reach the model as at most 25,000 with no truncation notice; read_result gives the next record byte-exact in one call", async () => {
    expect(BIG.length).toBeGreaterThan(200_000);
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const records = tool({ name: "records", description: "Every record.", sideEffecting: false }, () => BIG);
    await using spec = await serveRegistry([records], { name: "engine", ctx, results: {} });
    await spec.start();
    let wanted = "";
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__records", input: {} }] },
      (body) => {
        const seen = lastToolResult(body);
        const m = /read_result \{"id":"([A-Za-z0-9_-]+)","offset":(\d+)\}/.exec(seen);
        if (!m) return { text: `no read_result hint in: ${seen.slice(-400)}` };
        return { toolUses: [{ name: "mcp__engine__read_result", input: { id: m[1]!, offset: Number(m[2]), length: 2_000 } }] };
      },
      (body) => {
        // Claude Code shows read_result's structuredContent (the page is its `text`), not its text blocks.
        const page = (JSON.parse(lastToolResult(body)) as { text: string }).text;
        // The page starts at a whole member: the record is up to its closing brace.
        wanted = page.slice(0, page.indexOf("}") + 1);
        return { text: wanted };
      },
    ]);
    const cognition = hermeticClaude(h, api, { allowedTools: spec.autoApprove, ...spec.cliOptions({ builtinTools: false }) });
    const result = await new Agent({ name: "reader", cognition }).run("find the first record the preview leaves out", ctx);
    expect(result.error).toBeUndefined();
    const requests = api.messageRequests;
    expect(requests.length).toBe(3);
    const first = lastToolResult(requests[1]!);
    expect(first.length).toBeLessThanOrEqual(25_000);
    expect(first).not.toContain("The tool output was truncated");
    expect(first).not.toContain("persisted-output");
    expect(first).toContain("[Result of 'records': ");
    // One read_result call; the record the model read is the original's, byte for byte.
    expect(spec.callsSeen).toBe(2);
    const preview = JSON.parse(
      first.slice(0, first.indexOf("\n[Result of") >= 0 ? first.indexOf("\n[Result of") : first.indexOf("[Result of")),
    ) as unknown[];
    expect(wanted).toBe(JSON.stringify(ROWS[preview.length]));
    expect(result.output).toBe(wanted);
  });
});
