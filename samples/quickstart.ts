/**
 * @module samples/quickstart
 * The main job (`npm start`): a tour of everything the package does, on an
 * embedded default — no API key, no network. Part 1 runs here: an agent whose
 * tools are @Tool classes with constructor-injected services, driven by a
 * scripted FakeLLM. The other parts run the built samples one after another,
 * each in its own process: they spawn their own MCP servers over stdio, serve
 * registries on loopback with a generated token, answer approval prompts, and
 * boot an @McpServer module. With ANTHROPIC_API_KEY (or OPENAI_API_KEY) set,
 * part 1 runs on the real model instead (AnthropicLLM / OpenAILLM; model id
 * from AGENTKIT_MODEL) and says which it used.
 */
import "reflect-metadata";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { container, injectable } from "tsyringe";
import { IsBoolean, IsOptional, IsString } from "class-validator";
import { Agent, ReActCognition, Tool, ToolRegistry, type LLM, type RunContext } from "arc-agentkit";
import { AnthropicLLM, OpenAILLM } from "arc-agentkit/models";
import { FakeLLM, Turn, makeTestCtx } from "arc-agentkit/testing";

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

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  constructor(private readonly checks: CheckService) {}
  run(input: RunCheckInput, ctx: RunContext): string {
    ctx.emit("check.ran", { name: input.name });
    return this.checks.verdict(input.name, input.strict ?? false);
  }
}

const PARTS: ReadonlyArray<readonly [title: string, sample: string]> = [
  ["2. Consuming: spawn a real MCP server over stdio and call its tool as a Tool", "mcp-smallest.js"],
  ["3. Consuming: the same server's tools driven by an agent", "mcp-agent.js"],
  ["4. Consuming: its resources as memory and its prompts as Prompt objects", "mcp-resources-prompts.js"],
  ["5. Serving: a ToolRegistry on a loopback MCP listener with a generated bearer token", "serve-registry.js"],
  ["6. Serving: two timeouts that do not read the same", "serve-timeouts.js"],
  ["7. Approvals: ApprovalServer answers permission prompts through an Asker", "approvals.js"],
  ["8. DI: an @McpServer module with injected services, a remote MCP server as a provider, and the approval guard", "di-app.js"],
];

/** A real model when its API key is in the environment (Anthropic first), else null. */
function realModel(): { llm: LLM; model: string; said: string } | null {
  const env = process.env;
  if (env.ANTHROPIC_API_KEY) {
    const model = env.AGENTKIT_MODEL ?? "claude-haiku-4-5";
    return { llm: new AnthropicLLM(), model, said: `AnthropicLLM, model ${model} (ANTHROPIC_API_KEY is set)` };
  }
  if (env.OPENAI_API_KEY) {
    const model = env.AGENTKIT_MODEL ?? "gpt-4.1-mini";
    return { llm: new OpenAILLM(), model, said: `OpenAILLM, model ${model} (OPENAI_API_KEY is set)` };
  }
  return null;
}

function runPart(title: string, sample: string): boolean {
  const file = join(dirname(fileURLToPath(import.meta.url)), sample);
  console.log(`\n== ${title} ==`);
  if (!existsSync(file)) {
    console.log(`(skipped: ${sample} is not built — run npm run build)`);
    return false;
  }
  const r = spawnSync(process.execPath, [file], { stdio: "inherit", timeout: 120_000 });
  if (r.status !== 0) console.log(`(${sample} exited with ${r.status ?? r.signal})`);
  return r.status === 0;
}

async function main(): Promise<void> {
  const scope = container.createChildContainer();
  scope.registerSingleton(CheckService);
  const registry = ToolRegistry.fromTools([RunCheck], { container: scope });
  console.log("== 1. Core: @Tool classes with injected services, driven by a scripted model ==");
  console.log("tools:", registry.names());
  const real = realModel();
  const llm = real?.llm ?? FakeLLM.script([
    new Turn({ toolCalls: [{ id: "1", name: "run_check", arguments: { name: "lint", verbose: true } }] }),
    new Turn({ toolCalls: [{ id: "2", name: "run_check", arguments: { name: "lint" } }] }),
    new Turn({ content: "lint passed." }),
  ]);
  const ctx = makeTestCtx({ llm });
  const agent = new Agent({ name: "dev", model: real?.model ?? "fake", prompt: "Use the tools.", cognition: new ReActCognition({ tools: registry.tools() }) });
  const result = await agent.run("Is lint clean?", ctx);
  for (const c of result.toolCalls) console.log(`  ${c.name}(${JSON.stringify(c.arguments)}) -> ${c.result}`);
  console.log("output:", result.output, "| stopReason:", result.stopReason);
  console.log("service saw:", scope.resolve(CheckService).ran);
  console.log("model:", real?.said ?? "FakeLLM, scripted (set ANTHROPIC_API_KEY or OPENAI_API_KEY for a real model)");
  const failed = PARTS.filter(([title, sample]) => !runPart(title, sample));
  console.log(failed.length ? `\n${failed.length} part(s) failed.` : "\nAll parts ran.");
  if (failed.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
