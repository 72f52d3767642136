/**
 * @module test/mcp-di/asked-once.test
 * A module with both an ApprovalServer and its guard (`approvals` +
 * `guard: "asker"`), driven the way the Claude CLI drives it: the permission
 * prompt first (with the tool-use id), then the served call carrying the same
 * id in `_meta["claudecode/toolUseId"]`. A person is asked once per call, and
 * a prompt whose arguments the tool's schema refuses is denied unasked.
 * (The real binary, with approvalGuard({ answeredBy }): test/cli/asked-once-e2e.test.ts.)
 */
import "reflect-metadata";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { IsString } from "class-validator";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { Tool, type Asker, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { McpServer, bootstrap, type McpApp } from "../../src/mcp/index.js";

class TargetInput {
  @IsString() target!: string;
}

const ran: string[] = [];
@Tool({ description: "Deploy to a target.", input: TargetInput, requiresApproval: true })
class Deploy {
  run(input: TargetInput): string {
    ran.push(input.target);
    return `deployed to ${input.target}`;
  }
}

const ASKER = Symbol.for("test:asked-once:asker");
@McpServer({ name: "once", tools: [Deploy], approvals: ASKER, guard: "asker" })
class OnceModule {}

async function sdkClient(url: string, headers: Record<string, string>): Promise<Client & AsyncDisposable> {
  const c = new Client({ name: "claude-code-stand-in", version: "0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers },
      fetch: (u, init) => fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init),
    }),
  );
  return Object.assign(c, { [Symbol.asyncDispose]: () => c.close() });
}

/** The module booted with an Asker that approves everything and records what it was asked about. */
async function bootOnce(asked: string[]): Promise<McpApp> {
  const asker: Asker = { ask: async (q): Promise<Decision> => (asked.push(String(q.toolCall?.name)), { kind: "approve", actor: "ops" }) };
  const parent = container.createChildContainer();
  parent.register(ASKER, { useValue: asker });
  return bootstrap(OnceModule, { container: parent, ctx: makeTestCtx() });
}

const textOf = (r: unknown): string => (r as { content: Array<{ text?: string }> }).content[0]?.text ?? "";

describe("approvals and the guard in one module", () => {
  it("the prompt asks, the guarded call takes that answer for the same tool-use id: one question per call", async () => {
    const asked: string[] = [];
    await using app = await bootOnce(asked);
    await using prompt = await sdkClient(app.approvals!.url!, { ...app.approvals!.authHeaders });
    await using served = await sdkClient(app.spec!.url!, { ...app.spec!.authHeaders });
    ran.length = 0;
    const answer = JSON.parse(
      textOf(
        await prompt.callTool({
          name: "approve",
          arguments: { tool_name: "mcp__once__deploy", input: { target: "prod" }, tool_use_id: "toolu_1" },
        }),
      ),
    );
    expect(answer).toEqual({ behavior: "allow", updatedInput: { target: "prod" } });
    const result = await served.callTool({ name: "deploy", arguments: { target: "prod" }, _meta: { "claudecode/toolUseId": "toolu_1" } });
    expect(textOf(result)).toBe("deployed to prod");
    expect(ran).toEqual(["prod"]);
    expect(asked).toEqual(["mcp__once__deploy"]);
    expect(app.guard!.decisions).toMatchObject([{ allowed: true, asked: false, questionId: app.approvals!.decisions[0]!.questionId }]);
  });

  it("a prompt whose arguments the tool refuses is denied with the ToolArgumentError text, and no one is asked", async () => {
    const asked: string[] = [];
    await using app = await bootOnce(asked);
    await using prompt = await sdkClient(app.approvals!.url!, { ...app.approvals!.authHeaders });
    const answer = JSON.parse(
      textOf(
        await prompt.callTool({
          name: "approve",
          arguments: { tool_name: "mcp__once__deploy", input: { target: 7 }, tool_use_id: "toolu_2" },
        }),
      ),
    );
    expect(answer.behavior).toBe("deny");
    expect(answer.message).toMatch(/the call cannot run: tool 'deploy' call rejected: .*target/);
    expect(asked).toEqual([]);
    expect(app.approvals!.decisions).toMatchObject([{ allowed: false, source: "error", asked: false, questionId: null }]);
    // A tool the module does not serve (a built-in) is still asked about.
    JSON.parse(
      textOf(
        await prompt.callTool({ name: "approve", arguments: { tool_name: "Bash", input: { command: "ls" }, tool_use_id: "toolu_3" } }),
      ),
    );
    expect(asked).toEqual(["Bash"]);
  });
});
