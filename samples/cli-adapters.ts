/**
 * @module samples/cli-adapters
 * The two Claude-side adapters that have no Codex counterpart:
 * `hookSettings` (a PreToolUse hook that calls back into this process, so
 * agentkit's gate and audit see the CLI's built-in tools too) and
 * `asCliAgents` (agentkit agents presented as CLI subagents). Codex has
 * neither because `codex exec` runs no hooks and takes no subagent
 * definitions. This prints the two documents the CLI is handed.
 */
import { Agent, ReActCognition, tool } from "arc-agentkit";
import { asCliAgents, ClaudeCliCognition, HookServer, hookSettings } from "arc-agentkit/cli";

async function main(): Promise<void> {
  await using hooks = await HookServer.start({
    matcher: "Bash|Write|Edit",
    timeoutMs: 60_000,
    decide: (call) =>
      call.toolName === "Bash" && /\brm\b/.test(String(call.toolInput.command))
        ? { decision: "deny", reason: "no rm here" }
        : { decision: "defer" },
  });
  const hook = hookSettings(hooks).hooks.PreToolUse[0]!;
  console.log("hook matcher: ", hook.matcher);
  console.log("hook type:    ", hook.hooks[0]!.type, `(timeout ${hook.hooks[0]!.timeout}s)`);
  const [program, client] = hook.hooks[0]!.command.split(" ").map((w) => w.replace(/^'|'$/g, ""));
  console.log(
    "hook program: ",
    program === process.execPath && client!.endsWith("/dist/cli/hook-client.js")
      ? "process.execPath <package>/dist/cli/hook-client.js"
      : "unexpected",
  );
  console.log(
    "token env:    ",
    Object.keys(hooks.cliOptions().env)
      .map((k) => k.replace(/[0-9A-F]{8}$/, "<id>"))
      .join(", "),
  );

  const runCheck = tool(
    { name: "run_check", description: "Run a check.", input: { type: "object", properties: { name: { type: "string" } } } },
    ({ name }) => `${name}:ok`,
  );
  const reviewer = new Agent({
    name: "reviewer",
    description: "Reviews check results and says whether to ship.",
    prompt: "You review check results. Be terse.",
    cognition: new ReActCognition({ tools: [runCheck] }),
  });
  const agents = asCliAgents([reviewer], { mcpNames: { run_check: "mcp__engine__run_check" } });
  console.log("agents:       ", JSON.stringify(agents));

  // Both spread into the cognition; env carries the hook's token.
  const cognition = new ClaudeCliCognition({ model: "claude-sonnet-4-6", settingSources: "", agents, ...hooks.cliOptions() });
  console.log(
    "flags:        ",
    cognition
      .args("review")
      .filter((a) => a.startsWith("--"))
      .join(" "),
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
