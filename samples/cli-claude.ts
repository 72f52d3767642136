/**
 * @module samples/cli-claude
 * The Claude CLI runs agentkit's own tools: the shape a real caller writes
 * (serveRegistry + ClaudeCliCognition).
 *
 * `run()` is what a service writes: serve the registry on loopback, hand
 * `spec.cliOptions()` to the cognition, and let the CLI own the loop. `main()`
 * runs it once. It spawns the binary named by `CLAUDE_BIN` (default: `claude`
 * on PATH) with this process's environment, so `ANTHROPIC_BASE_URL` and
 * friends decide which API it talks to; test/cli/samples.test.ts points it at
 * a local fake and checks what this prints.
 */
import { IsString } from "class-validator";
import { Agent, Tool, ToolRegistry, type AgentResult, type RunContext } from "arc-agentkit";
import { ClaudeCliCognition } from "arc-agentkit/cli";
import { serveRegistry } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

class RunCheckInput {
  @IsString() name!: string;
}

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  run({ name }: RunCheckInput): string {
    return `${name}:ok`;
  }
}

/** Serve `registry` to the Claude CLI and run `task` there; returns the agent's result and how many calls reached the server. */
export async function run(registry: ToolRegistry, task: string, ctx: RunContext): Promise<{ result: AgentResult; callsSeen: number }> {
  await using spec = await serveRegistry(registry, { name: "engine", ctx, timeoutMs: 120_000 });
  await spec.start();
  const cognition = new ClaudeCliCognition({
    model: process.env.CLAUDE_MODEL ?? "claude-sonnet-4-6",
    binary: process.env.CLAUDE_BIN ?? "claude",
    allowedTools: spec.autoApprove, // the rest still prompt
    settingSources: "", // no ambient user/project settings decide for us
    timeoutMs: 300_000,
    ...spec.cliOptions({ builtinTools: false }), // only OUR tools
  });
  const result = await new Agent({ name: "dev", cognition }).run(task, ctx);
  return { result, callsSeen: spec.callsSeen };
}

async function main(): Promise<void> {
  const ctx = makeTestCtx();
  const { result, callsSeen } = await run(ToolRegistry.fromTools([RunCheck]), "check lint", ctx);
  if (result.error) throw result.error;
  console.log("mcp servers:", JSON.stringify(ctx.eventsNamed("cli.init")[0]?.data.mcpServers));
  console.log("tool calls: ", JSON.stringify(result.toolCalls.map((c) => [c.name, c.arguments, c.result])));
  console.log("calls seen: ", callsSeen);
  console.log("stop:       ", result.stopReason);
  console.log("output:     ", result.output);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
