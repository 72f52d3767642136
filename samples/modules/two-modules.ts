/**
 * @module samples/modules/two-modules
 * A module file with two @McpServer classes: `agentkit serve` asks which one
 * (`--export ChecksModule` or `--export GuardedModule`).
 *
 *   npx agentkit serve build/samples/modules/two-modules.js --export GuardedModule
 *
 * `GuardedModule` names an Asker for approvals, so the printed Claude line also
 * carries `--permission-prompt-tool` (the approval server runs beside the tools).
 */
import "reflect-metadata";
import { injectable } from "tsyringe";
import { IsString } from "class-validator";
import { Tool, type Asker, type Decision, type Elicitation } from "arc-agentkit";
import { McpServer } from "arc-agentkit/mcp";

class LookupInput {
  @IsString() key!: string;
}

@Tool({ description: "Look a key up in the read-only settings store.", input: LookupInput, sideEffecting: false })
export class Lookup {
  run(input: LookupInput): string {
    return `${input.key}=on`;
  }
}

class RestartInput {
  @IsString() service!: string;
}

@Tool({ description: "Restart the named service.", input: RestartInput, requiresApproval: true })
export class Restart {
  run(input: RestartInput): string {
    return `restarted ${input.service}`;
  }
}

/** A stand-in Asker: a real one awaits a person. It refuses anything touching the database. */
@injectable()
export class Reviewer implements Asker {
  async ask(request: Elicitation): Promise<Decision> {
    const args = JSON.stringify(request.toolCall?.arguments ?? {});
    return args.includes("db") ? { kind: "reject", actor: "ops", note: "not the database" } : { kind: "approve", actor: "ops" };
  }
}

@McpServer({ name: "checks", tools: [Lookup] })
export class ChecksModule {}

@McpServer({ name: "guarded", tools: [Lookup, Restart], providers: [Reviewer], approvals: Reviewer, guard: "asker" })
export class GuardedModule {}
