/**
 * @module cli/cli-agents
 * `asCliAgents(agents)`: agentkit `Agent` definitions presented to the Claude
 * CLI as subagents (the `--agents` document). Codex has no counterpart:
 * `codex exec` takes no subagent definitions.
 */
import type { Agent } from "../agents/agent.js";
import type { Tool } from "../tools/tool.js";
import { AgentkitError } from "../errors/agentkit.error.js";
import { OptionsError } from "../errors/options.error.js";
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { describeValue } from "../util/format.js";

/** One subagent as the Claude CLI's `--agents` document describes it. */
export interface CliAgentDefinition {
  /** When the main agent should delegate to it (the CLI shows this to the model). */
  readonly description: string;
  /** The subagent's system prompt. */
  readonly prompt: string;
  /** The CLI tool names it may use; absent means it inherits every tool of the session. */
  readonly tools?: readonly string[];
  /** A model alias or id; absent means it inherits the session's model. */
  readonly model?: string;
}

/** An agent to present, optionally with its CLI tool names and model spelled out. */
export type CliAgentInput = Agent | { readonly agent: Agent; readonly tools?: readonly string[]; readonly model?: string };

/** Options of `asCliAgents`. */
export interface CliAgentsOptions {
  /**
   * Original tool name -> qualified CLI name (`spec.mcpNames` of the served
   * registry). Used to name the tools of an agent whose cognition holds local
   * tools (a `ReActCognition`): the CLI can only reach them through the server.
   */
  readonly mcpNames?: Readonly<Record<string, string>>;
}

/** The options `asCliAgents` accepts, declared once. */
const CLI_AGENTS_OPTIONS = {
  mcpNames: opt.stringRecord(),
} satisfies Record<keyof CliAgentsOptions, OptionRule<unknown>>;

/** An `{ agent, tools, model }` entry, declared once. */
const ENTRY_OPTIONS = {
  agent: opt.required(
    opt.that<Agent>(isAgent, "an Agent (new Agent({ ... }))"),
    `an Agent, e.g. { agent: new Agent({ ... }), tools: ["Read"] }`,
  ),
  tools: opt.stringArray(true),
  model: opt.string("a model alias or id", true),
} as const;

const AGENT_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** An `Agent`, or an object shaped like one (its cognition is what marks it). */
function isAgent(v: unknown): v is Agent {
  return typeof v === "object" && v !== null && "cognition" in v;
}

/** One input as `{ agent, tools, model }`, checked: an `Agent` as is, an entry by its spec. */
function entryOf(input: unknown, i: number): { readonly agent: Agent; readonly tools?: readonly string[]; readonly model?: string } {
  if (isAgent(input)) return { agent: input };
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new OptionsError(
      "asCliAgents",
      "agents",
      `asCliAgents: agents[${i}] must be an Agent or { agent, tools?, model? }, got ${describeValue(input)}`,
    );
  }
  return checkOptions(input, `asCliAgents(agents[${i}])`, ENTRY_OPTIONS);
}

function localTools(agent: Agent): readonly Tool[] | undefined {
  const tools = (agent.cognition as { tools?: unknown }).tools;
  return Array.isArray(tools) ? (tools as Tool[]) : undefined;
}

/**
 * Build the `--agents` document for `ClaudeCliCognition({ agents })`: one
 * entry per agent, keyed by `agent.name`, with its `description`, `prompt`,
 * tools and model.
 *
 * Tools: an explicit `tools` list is used verbatim (CLI names: `Read`,
 * `mcp__engine__run_check`). Otherwise, when the agent's cognition holds
 * local tools, each is named through `options.mcpNames`; a tool that is not
 * served throws, because the CLI could not call it and silently dropping it
 * would change what the subagent can do. An agent with neither inherits the
 * session's tools. Model: `agent.model` unless it is the core's `"default"`.
 *
 * @throws AgentkitError (code `cli_agents`) for a duplicate or malformed name (lowercase
 *   letters, digits, `-`, `_`), or an empty description or prompt (the CLI
 *   needs both to decide when to delegate and what the subagent is).
 * @throws OptionsError for an unknown option or entry key, a value of the
 *   wrong kind, or `null` options or entries, naming what is accepted.
 */
export function asCliAgents(agents: Iterable<CliAgentInput>, options: CliAgentsOptions = {}): Record<string, CliAgentDefinition> {
  const o = checkOptions(options, "asCliAgents", CLI_AGENTS_OPTIONS);
  if (typeof (agents as Partial<Iterable<unknown>> | null)?.[Symbol.iterator] !== "function") {
    throw new OptionsError(
      "asCliAgents",
      "agents",
      `asCliAgents: agents must be an iterable of Agent or { agent, tools?, model? }, got ${describeValue(agents)}`,
    );
  }
  const out: Record<string, CliAgentDefinition> = {};
  let i = 0;
  for (const input of agents) {
    const explicit = entryOf(input, i++);
    const agent = explicit.agent;
    const name = agent.name;
    if (!AGENT_NAME.test(name)) {
      throw new AgentkitError(
        "cli_agents",
        `asCliAgents: agent name '${name}' cannot be a CLI subagent name; use lowercase letters, digits, '-' and '_'`,
      );
    }
    if (Object.hasOwn(out, name)) throw new AgentkitError("cli_agents", `asCliAgents: two agents are named '${name}'`);
    if (!agent.description.trim()) {
      throw new AgentkitError(
        "cli_agents",
        `asCliAgents: agent '${name}' has no description; the CLI shows it to the model to decide when to delegate ` +
          `(new Agent({ description }))`,
      );
    }
    if (!agent.prompt.trim())
      throw new AgentkitError(
        "cli_agents",
        `asCliAgents: agent '${name}' has no prompt; it becomes the subagent's system prompt (new Agent({ prompt }))`,
      );
    let tools: string[] | undefined;
    if (explicit.tools) tools = [...explicit.tools];
    else {
      const local = localTools(agent);
      if (local) {
        tools = local.map((t) => {
          const q = o.mcpNames && Object.hasOwn(o.mcpNames, t.name) ? o.mcpNames[t.name] : undefined;
          if (!q) {
            throw new AgentkitError(
              "cli_agents",
              `asCliAgents: agent '${name}' uses tool '${t.name}', which is not served to the CLI; serve it ` +
                `(serveRegistry) and pass { mcpNames: spec.mcpNames }, or list the agent's CLI tools explicitly`,
            );
          }
          return q;
        });
      }
    }
    const model = explicit.model ?? (agent.model !== "default" ? agent.model : undefined);
    out[name] = Object.freeze({
      description: agent.description,
      prompt: agent.prompt,
      ...(tools ? { tools: Object.freeze(tools) } : {}),
      ...(model ? { model } : {}),
    });
  }
  return out;
}
