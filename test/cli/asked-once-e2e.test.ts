/**
 * @module test/cli/asked-once-e2e.test
 * Asked once (real Claude CLI against the fake Anthropic API): a served
 * module whose `requiresApproval` tool is guarded (`approvalGuard`) and an
 * `ApprovalServer` as the CLI's `--permission-prompt-tool`, both answered by
 * one reviewer. The CLI asks the approval server first (with the tool-use
 * id); the guard learns that answer for the same tool-use id from the
 * served call's `_meta` (`claudecode/toolUseId`) and does not ask again. One
 * person answer per protected call; both records carry the one questionId.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { Agent, tool, type Asker, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, approvalGuard, serveRegistry } from "../../src/mcp/index.js";
import { mergeCliOptions, type ClaudeCliOptions } from "../../src/cli/index.js";
import { hermeticClaude } from "./kit/cognitions.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";

/** One reviewer for both seams, counting the questions it is put. */
function reviewerAnswering(decision: Decision): Asker & { readonly questionIds: string[] } {
  const questionIds: string[] = [];
  return { questionIds, ask: async (_q, options) => (questionIds.push(options?.questionId ?? "(none)"), decision) };
}

describe("approvals and guard together (real claude)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("one person answer per protected call: the approval prompt asks, the guard takes that answer for the tool-use id", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const ran: string[] = [];
    const deploy = tool(
      {
        name: "deploy",
        description: "Deploy to the named environment.",
        input: { type: "object", properties: { env: { type: "string" } }, required: ["env"] },
        requiresApproval: true,
      },
      function deploy(input: { env: string }) {
        ran.push(input.env);
        return `deployed to ${input.env}`;
      },
    );
    const reviewer = reviewerAnswering({ kind: "approve", actor: "ops" });
    await using approvals = await ApprovalServer.start({ asker: reviewer, ctx });
    const guard = approvalGuard({ asker: reviewer, answeredBy: approvals });
    await using spec = await serveRegistry([deploy], { name: "engine", ctx, guard });
    await spec.start();
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__deploy", input: { env: "staging" } }] },
      { text: "deployed" },
    ]);
    const cognition = hermeticClaude(
      h,
      api,
      mergeCliOptions<Partial<ClaudeCliOptions>>(spec.cliOptions({ builtinTools: false }), approvals.cliOptions()),
    );
    const result = await new Agent({ name: "dev", cognition }).run("deploy staging", ctx);
    expect(result.error).toBeUndefined();
    expect(ran).toEqual(["staging"]);
    expect(reviewer.questionIds).toHaveLength(1);
    expect(approvals.decisions).toMatchObject([
      { tool: "mcp__engine__deploy", allowed: true, source: "asker", asked: true, questionId: reviewer.questionIds[0] },
    ]);
    const toolUseId = approvals.decisions[0]!.id;
    expect(toolUseId).toMatch(/^toolu_/);
    expect(guard.decisions).toMatchObject([
      {
        tool: "mcp__engine__deploy",
        id: toolUseId,
        allowed: true,
        source: "asker",
        asked: false,
        actor: "ops",
        questionId: reviewer.questionIds[0],
      },
    ]);
    expect(api.toolResults()).toMatchObject([{ type: "tool_result", content: [{ type: "text", text: "deployed to staging" }] }]);
  });
});
