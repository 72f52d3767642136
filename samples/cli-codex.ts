/**
 * @module samples/cli-codex
 * Pointing Codex at the same server:
 * `new CodexCliCognition({ model, ...asCodexMcp(spec) })`.
 *
 * Codex reads MCP servers from config keys (`mcp_servers.<name>.<key>`), and
 * has no header field for a bearer token, so `asCodexMcp` names an
 * environment variable instead and carries the token in `env`: the child's
 * environment, not its argv (which `ps` shows). This prints the argv the
 * cognition would run, with the token checked for, and the variable names.
 */
import { IsString } from "class-validator";
import { Tool, ToolRegistry } from "arc-agentkit";
import { asCodexMcp, CodexCliCognition } from "arc-agentkit/cli";
import { serveRegistry } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

class RunCheckInput {
  @IsString() name!: string;
}

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  run({ name }: RunCheckInput): string {
    return `${name}:ok`;
  }
}

class DeployInput {
  @IsString() target!: string;
}

@Tool({ description: "Deploy the build to a target.", input: DeployInput, requiresApproval: true })
class Deploy {
  run({ target }: DeployInput): string {
    return `deployed to ${target}`;
  }
}

async function main(): Promise<void> {
  await using spec = await serveRegistry(ToolRegistry.fromTools([RunCheck, Deploy]), { name: "engine", ctx: makeTestCtx() });
  await spec.start();
  const codex = asCodexMcp(spec);
  const cognition = new CodexCliCognition({ model: "gpt-5-codex", sandbox: "read-only", ...codex });
  const argv = cognition.args("check lint");
  const token = spec.authHeaders.Authorization!.slice("Bearer ".length);
  const overrides = argv.flatMap((a, i) => (argv[i - 1] === "-c" ? [a.replace(spec.url!, "<url>")] : []));
  console.log("config keys:  ", Object.keys(codex.config).join(", "));
  console.log("-c overrides:");
  for (const o of overrides) console.log("   ", o);
  console.log("env names:    ", Object.keys(codex.env).join(", "));
  console.log(
    "token in argv:",
    argv.some((a) => a.includes(token)),
  );
  console.log("token in env: ", Object.values(codex.env).includes(token));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
