/**
 * @module samples/modules/ops-module
 * An @McpServer module file, ready for the `agentkit` command line:
 *
 *   npm run build
 *   npx agentkit serve build/samples/modules/ops-module.js
 *
 * prints the `claude --mcp-config ...` line to paste, and serves `run_check`
 * and `deploy` until Ctrl-C. `--transport stdio` makes it the child a CLI spawns.
 */
import "reflect-metadata";
import { injectable } from "tsyringe";
import { IsBoolean, IsOptional, IsString } from "class-validator";
import { Tool } from "arc-agentkit";
import { McpServer } from "arc-agentkit/mcp";

/** A module singleton the tools share: injected by type. */
@injectable()
export class CheckService {
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
export class RunCheck {
  constructor(private readonly checks: CheckService) {}
  run(input: RunCheckInput): string {
    return this.checks.verdict(input.name, input.strict ?? false);
  }
}

@Tool({
  description: "Deploy the current build to the named target environment.",
  input: DeployInput,
  requiresApproval: true,
  caps: ["egress"],
})
export class Deploy {
  constructor(private readonly checks: CheckService) {}
  run(input: DeployInput): string {
    return `deployed to ${input.target} after ${this.checks.ran.length} check(s)`;
  }
}

/** The module `agentkit serve` picks: the only @McpServer export of this file. */
@McpServer({ name: "engine", tools: [RunCheck, Deploy], providers: [CheckService] })
export class OpsModule {}
