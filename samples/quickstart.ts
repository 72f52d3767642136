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

/** One part of the tour: its title, the built sample it runs, and what its printed fields mean (a few words each). */
interface Part {
  readonly title: string;
  readonly sample: string;
  readonly fields: readonly string[];
}

const PARTS: readonly Part[] = [
  {
    title: "2. Consuming: spawn a real MCP server over stdio and call its tool as a Tool",
    sample: "mcp-smallest",
    fields: [
      "params: the JSON Schema of the tool's arguments, as the server sent it",
      "sideEffecting: true — an MCP tool is assumed to change something unless you opt in (mcpTools trustReadOnlyHint)",
    ],
  },
  {
    title: "3. Consuming: the same server's tools driven by an agent",
    sample: "mcp-agent",
    fields: ["stopReason: why the agent stopped (complete = it answered)"],
  },
  {
    title: "4. Consuming: its resources as memory and its prompts as PromptTemplate objects",
    sample: "mcp-resources-prompts",
    fields: [
      "memory / metadata: the best-matching resource's text and where it came from",
      "static: prompts without required arguments, rendered once; the one with arguments is fetched directly",
    ],
  },
  {
    title: "5. Serving: a ToolRegistry on a loopback MCP listener with a generated bearer token",
    sample: "serve-registry",
    fields: [
      "requiresApproval / autoApprove: tools a person must allow / tools the CLI may run unasked",
      "caps: the capability labels the tools declare (e.g. egress = sends data out)",
      "_meta / readOnlyHint: what the server tells clients about each tool",
      "callsSeen: how many tool calls reached the server",
    ],
  },
  {
    title: "6. Serving: a tool deadline (ours) next to a client timeout (theirs), and how each reads",
    sample: "serve-timeouts",
    fields: [
      "our deadline: the server gave up on a slow tool and said so as a tool error",
      "their error: the client stopped waiting first; the message is the client's",
    ],
  },
  {
    title: "7. Approvals: ApprovalServer answers permission prompts through an Asker",
    sample: "approvals",
    fields: [
      "promptsSeen: permission prompts the server received",
      "source: who decided (asker = a person, autoAllow = a rule, autonomy = the tier); asked: whether the Asker was asked",
    ],
  },
  {
    title: "8. DI: an @McpServer module with injected services, a remote MCP server as a provider, and the approval guard",
    sample: "di-app",
    fields: ["requires approval: tools the guard asks a person about", "calls seen: tool calls that reached the served module"],
  },
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

function runPart({ title, sample: name, fields }: Part): boolean {
  const sample = `${name}.js`;
  const file = join(dirname(fileURLToPath(import.meta.url)), sample);
  console.log(`\n== ${title} ==`);
  console.log(`   code: samples/${name}.ts`);
  for (const f of fields) console.log(`   ${f}`);
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
  console.log("   code: samples/quickstart.ts (this file); every later part names its own");
  console.log("tools:", registry.names());
  const real = realModel();
  const llm =
    real?.llm ??
    FakeLLM.script([
      new Turn({ toolCalls: [{ id: "1", name: "run_check", arguments: { name: "lint", verbose: true } }] }),
      new Turn({ toolCalls: [{ id: "2", name: "run_check", arguments: { name: "lint" } }] }),
      new Turn({ content: "lint passed." }),
    ]);
  const ctx = makeTestCtx({ llm });
  const agent = new Agent({
    name: "dev",
    model: real?.model ?? "fake",
    prompt: "Use the tools.",
    cognition: new ReActCognition({ tools: registry.tools() }),
  });
  const result = await agent.run("Is lint clean?", ctx);
  for (const c of result.toolCalls) console.log(`  ${c.name}(${JSON.stringify(c.arguments)}) -> ${c.result}`);
  console.log("output:", result.output, "| stopReason:", result.stopReason);
  console.log("service saw:", scope.resolve(CheckService).ran);
  console.log("model:", real?.said ?? "FakeLLM, scripted (set ANTHROPIC_API_KEY or OPENAI_API_KEY for a real model)");
  const failed = PARTS.filter((part) => !runPart(part));
  console.log(failed.length ? `\n${failed.length} part(s) failed.` : "\nAll parts ran.");
  if (failed.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
