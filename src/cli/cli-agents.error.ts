/**
 * @module cli/cli-agents.error
 * Bad subagent definitions for the Claude CLI.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Thrown when an agent cannot be presented as a CLI subagent. */
export class CliAgentsError extends AgentkitError {
  constructor(message: string) {
    super("cli_agents", message);
  }
}
