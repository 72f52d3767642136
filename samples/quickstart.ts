/**
 * The main job (`npm start`): an agent whose tools are @Tool classes with
 * constructor-injected services, driven by a scripted FakeLLM — no API key,
 * no network.
 */
import "reflect-metadata";
import { container, injectable } from "tsyringe";
import { IsBoolean, IsOptional, IsString } from "class-validator";
import { Agent, ReActCognition, Tool, ToolRegistry, type RunContext } from "arc-agentkit";
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

async function main(): Promise<void> {
  const scope = container.createChildContainer();
  scope.registerSingleton(CheckService);
  const registry = ToolRegistry.fromTools([RunCheck], { container: scope });
  console.log("== core: @Tool classes with injected services ==");
  console.log("tools:", registry.names());
  const llm = FakeLLM.script([
    new Turn({ toolCalls: [{ id: "1", name: "run_check", arguments: { name: "lint", verbose: true } }] }),
    new Turn({ toolCalls: [{ id: "2", name: "run_check", arguments: { name: "lint" } }] }),
    new Turn({ content: "lint passed." }),
  ]);
  const ctx = makeTestCtx({ llm });
  const agent = new Agent({ name: "dev", model: "fake", prompt: "Use the tools.", cognition: new ReActCognition({ tools: registry.tools() }) });
  const result = await agent.run("Is lint clean?", ctx);
  for (const c of result.toolCalls) console.log(`  ${c.name}(${JSON.stringify(c.arguments)}) -> ${c.result}`);
  console.log("output:", result.output, "| stopReason:", result.stopReason);
  console.log("service saw:", scope.resolve(CheckService).ran);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
