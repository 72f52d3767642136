/**
 * @module samples/di-app
 * Decorators and DI end to end: service classes annotated as tools (with
 * injected services), tools injected from a real stdio MCP server, and an
 * @McpServer module booted with the server-side approval guard. Driven by a
 * scripted FakeLLM — no API key, no network.
 */
import "reflect-metadata";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { injectable } from "tsyringe";
import { IsBoolean, IsOptional, IsString } from "class-validator";
import { Agent, ReActCognition, RunContext, Tool, ToolRegistry, type Asker, type Decision, type Elicitation } from "arc-agentkit";
import { InjectMcpTools, MCPClient, McpServer, StdioServer, StreamableHttpServer, bootstrap, remote } from "arc-agentkit/mcp";
import { FakeLLM, Turn, makeTestCtx } from "arc-agentkit/testing";

const here = dirname(fileURLToPath(import.meta.url));

@injectable()
class CheckService {
  readonly ran: string[] = [];
  verdict(name: string, strict: boolean): string {
    this.ran.push(name);
    return `${name}:${strict ? "strict" : "lax"}:ok`;
  }
}

class RunCheckInput {
  @IsString() name!: string;
  @IsOptional() @IsBoolean() strict?: boolean;
}

class DeployInput {
  @IsString() target!: string;
}

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  constructor(private readonly checks: CheckService) {}
  run(input: RunCheckInput): string {
    return this.checks.verdict(input.name, input.strict ?? false);
  }
}

// Takes the call's RunContext in its constructor, so it is built per call
// (request scope) while CheckService stays a module singleton.
@Tool({
  description: "Deploy the current build to the named target environment.",
  input: DeployInput,
  requiresApproval: true,
  caps: ["egress"],
})
class Deploy {
  constructor(
    private readonly checks: CheckService,
    private readonly call: RunContext,
  ) {}
  run(input: DeployInput): string {
    return `deployed to ${input.target} (checks so far: ${this.checks.ran.length}, caller: ${String(this.call.caller?.server)})`;
  }
}

/** A stand-in Asker: a real one awaits a person. */
@injectable()
class Reviewer implements Asker {
  async ask(request: Elicitation): Promise<Decision> {
    const target = String(request.toolCall?.arguments.target ?? "");
    return target === "prod"
      ? { kind: "reject", actor: "ops-lead", note: "no prod deploys on a Friday" }
      : { kind: "approve", actor: "ops-lead" };
  }
}

/** An agent service: gets the remote server's tools injected by alias, plus the module's registry. */
@injectable()
class OpsAgent {
  constructor(
    @InjectMcpTools("ops") private readonly opsTools: Tool[],
    private readonly registry: ToolRegistry,
  ) {}
  run(task: string, ctx: RunContext) {
    const tools = [...this.opsTools, ...this.registry.tools().filter((t) => !t.requiresApproval)];
    return new Agent({ name: "ops", model: "fake", prompt: "Use the tools.", cognition: new ReActCognition({ tools }) }).run(task, ctx);
  }
}

@McpServer({
  name: "engine",
  tools: [RunCheck, Deploy],
  providers: [CheckService, Reviewer, OpsAgent],
  remotes: [
    remote("ops", new StdioServer({ command: process.execPath, args: [join(here, "servers", "ops-server.js")] }), { prefix: "ops_" }),
  ],
  approvals: Reviewer,
  guard: "asker",
  timeoutMs: 30_000,
})
class EngineModule {}

export async function runDiApp(): Promise<void> {
  const app = await bootstrap(EngineModule);
  try {
    const spec = app.spec!;
    console.log("served tools:     ", spec.toolNames);
    console.log("requires approval:", spec.requiresApproval);
    console.log("cliOptions keys:  ", JSON.stringify(Object.keys(app.cliOptions()).sort()));

    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "1", name: "ops_queue_depth", arguments: { queue: "ingest" } }] }),
      new Turn({ toolCalls: [{ id: "2", name: "run_check", arguments: { name: "lint" } }] }),
      new Turn({ content: "Queue is deep but lint passes." }),
    ]);
    const result = await app.container.resolve(OpsAgent).run("How is ingest?", makeTestCtx({ llm }));
    for (const c of result.toolCalls) console.log(`  agent: ${c.name}(${JSON.stringify(c.arguments)}) -> ${c.result}`);
    console.log("  agent output:", result.output, "| stopReason:", result.stopReason);

    await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }));
    for (const target of ["staging", "prod"]) {
      const res = await client.callTool("deploy", { target });
      const text = res.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("");
      console.log(`  deploy ${target.padEnd(7)} isError=${String(res.isError ?? false).padEnd(5)} ${text}`);
    }
    console.log("calls seen:", spec.callsSeen);
  } finally {
    await app.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runDiApp().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
