/**
 * @module test/cli/kit/human-paced
 * The pieces of the human-paced runs (a person takes their time): a tool that
 * takes long, a tool that needs approval, a person who answers late, and the
 * run against each real CLI with the served module — shared by the fast tests
 * (limits lowered) and the full-length ones at the binaries' defaults.
 */
import {
  Agent,
  tool,
  type Asker,
  type AskOptions,
  type Decision,
  type Elicitation,
  type FunctionTool,
  type RunContext,
} from "../../../src/index.js";
import { mergeCliOptions, type ClaudeCliOptions } from "../../../src/cli/index.js";
import type { ApprovalServer, McpServerSpec } from "../../../src/mcp/index.js";
import { hermeticClaude, hermeticCodex } from "./cognitions.js";
import { FakeAnthropic } from "./fake-anthropic.js";
import { FakeOpenAI } from "./fake-openai.js";
import type { Hermetic } from "./hermetic.js";

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A read-only tool `build` that takes `holdMs` (a long build, say), records that it finished, and answers. */
export function slowBuild(seen: string[], holdMs: number): FunctionTool {
  return tool(
    {
      name: "build",
      description: "Build the project.",
      input: { type: "object", properties: {}, additionalProperties: false },
      sideEffecting: false,
    },
    async () => {
      await sleep(holdMs);
      seen.push("build");
      return "build finished";
    },
  );
}

/** A tool `deploy` that needs a person's approval and records that it ran. */
export function deployTool(seen: string[]): FunctionTool {
  return tool(
    {
      name: "deploy",
      description: "Deploy.",
      input: { type: "object", properties: { env: { type: "string" } }, required: ["env"], additionalProperties: false },
      requiresApproval: true,
    },
    ({ env }: { env: string }) => {
      seen.push(`deploy:${env}`);
      return `deployed to ${env}`;
    },
  );
}

/** A person who answers `approve` (actor `slow reviewer`) after `holdMs`; `gaveUp` records when the asking side withdrew a question (ms after it was asked). */
export function slowPerson(holdMs: number): Asker & { asked: number; gaveUp: number[] } {
  const a = {
    asked: 0,
    gaveUp: [] as number[],
    async ask(_question: Elicitation, options?: AskOptions): Promise<Decision> {
      a.asked++;
      const at = Date.now();
      options?.signal.addEventListener("abort", () => a.gaveUp.push(Date.now() - at), { once: true });
      await sleep(holdMs);
      return { kind: "approve", actor: "slow reviewer" };
    },
  };
  return a;
}

/** What one CLI run left behind: the tool result the model API got back (its text), and how long the run took. */
export interface PacedRun {
  readonly result: Record<string, unknown> | undefined;
  readonly text: string;
  readonly ms: number;
}

/** Claude calls `mcp__engine__<toolName>` once (through `approvals` when given), then says "done". */
export async function claudeCalls(
  h: Hermetic,
  ctx: RunContext,
  spec: McpServerSpec,
  toolName: string,
  input: Record<string, unknown>,
  options: { approvals?: ApprovalServer; env?: Record<string, string>; timeoutMs: number },
): Promise<PacedRun> {
  await using api = await FakeAnthropic.start([{ toolUses: [{ name: `mcp__engine__${toolName}`, input }] }, { text: "done" }]);
  const cli = options.approvals
    ? mergeCliOptions<Partial<ClaudeCliOptions>>(spec.cliOptions({ builtinTools: false }), options.approvals.cliOptions())
    : { allowedTools: spec.autoApprove, ...spec.cliOptions({ builtinTools: false }) };
  const started = Date.now();
  await new Agent({ name: "dev", cognition: hermeticClaude(h, api, { ...cli, env: options.env ?? {}, timeoutMs: options.timeoutMs }) }).run(
    `call ${toolName}`,
    ctx,
  );
  const [result] = api.toolResults();
  return { result, text: JSON.stringify(result ?? null), ms: Date.now() - started };
}

/** Codex calls `mcp__engine__<toolName>` once with `spec.codexOptions()` over `baseConfig`, then says "done". */
export async function codexCalls(
  h: Hermetic,
  ctx: RunContext,
  spec: McpServerSpec,
  toolName: string,
  args: Record<string, unknown>,
  options: { baseConfig?: Record<string, number>; timeoutMs: number },
): Promise<PacedRun> {
  await using api = await FakeOpenAI.start([
    { functionCalls: [{ namespace: "mcp__engine", name: toolName, arguments: args }] },
    { text: "done" },
  ]);
  const { config, env } = spec.codexOptions();
  const started = Date.now();
  await new Agent({
    name: "dev",
    cognition: hermeticCodex(h, api, { config: { ...options.baseConfig, ...config }, env, timeoutMs: options.timeoutMs }),
  }).run(`call ${toolName}`, ctx);
  const text = api
    .functionOutputs()
    .map((o) => o.text)
    .join("\n");
  return { result: undefined, text, ms: Date.now() - started };
}
