/**
 * @module samples/cli-approvals
 * In real use you never call `approve` yourself: hand `approvals.cliOptions()`
 * to ClaudeCliCognition. The Claude CLI owns the loop; every permission prompt it raises reaches `run()`'s Asker through the
 * approval server's MCP tool.
 *
 * `main()` runs it once with a reviewer that refuses writes outside the work
 * directory. It spawns the binary named by `CLAUDE_BIN` (default: `claude` on
 * PATH) with this process's environment, so `ANTHROPIC_BASE_URL` decides which
 * API it talks to; test/cli/samples-approvals.test.ts points it at a local fake.
 */
import { Agent, type AgentResult, type Asker, type Decision, type Elicitation, type GateRecord, type RunContext } from "arc-agentkit";
import { ClaudeCliCognition } from "arc-agentkit/cli";
import { ApprovalServer } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

/** What a service writes: the CLI's prompts go to `asker`, each settled within 120 s. */
export async function run(asker: Asker, task: string, ctx: RunContext): Promise<{ result: AgentResult; decisions: readonly GateRecord[] }> {
  await using approvals = await new ApprovalServer({ asker, timeoutMs: 120_000, ctx }).start();
  const cognition = new ClaudeCliCognition({
    model: process.env.CLAUDE_MODEL ?? "claude-sonnet-4-6",
    binary: process.env.CLAUDE_BIN ?? "claude",
    timeoutMs: 300_000,
    ...approvals.cliOptions(),
  });
  const result = await new Agent({ name: "dev", cognition }).run(task, ctx);
  return { result, decisions: [...approvals.decisions] };
}

/** A stand-in reviewer: writes under /etc are refused, everything else approved. */
class Reviewer implements Asker {
  async ask(request: Elicitation): Promise<Decision> {
    const path = String(request.toolCall?.arguments.file_path ?? "");
    return path.startsWith("/etc/") ? { kind: "reject", actor: "ci", note: "/etc is out of scope" } : { kind: "approve", actor: "ci" };
  }
}

async function main(): Promise<void> {
  const ctx = makeTestCtx();
  const { result, decisions } = await run(new Reviewer(), "write the sample config", ctx);
  if (result.error) throw result.error;
  for (const d of decisions)
    console.log(`decision:    ${d.tool} allowed=${d.allowed} source=${d.source} asked=${d.asked} reason=${JSON.stringify(d.reason)}`);
  console.log("denials:    ", JSON.stringify(result.details?.permissionDenials ?? []));
  console.log("stop:       ", result.stopReason);
  console.log("output:     ", result.output);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
