/**
 * @module samples/serve-registry
 * agentkit as the MCP server: a ToolRegistry the Claude CLI can call.
 *
 * The TypeScript twin of the seed's serve_registry example, driven by
 * agentkit's own MCP client over a real loopback socket, because that is the
 * only way to show the error contract holding. Its output follows the seed's
 * line for line (test/mcp-serve/samples.test.ts compares them); the option
 * names on the `cli_kwargs keys` line are the TypeScript ones.
 */
import { IsBoolean, IsOptional, IsString } from "class-validator";
import { Tool, ToolRegistry } from "arc-agentkit";
import { MCPClient, META_KEY, StreamableHttpServer, serveRegistry } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

class RunCheckInput {
  @IsString() name!: string;
  @IsOptional() @IsBoolean() strict?: boolean;
}

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  run({ name, strict }: RunCheckInput): string {
    return `${name}:${strict ? "strict" : "lax"}:ok`;
  }
}

class DeployInput {
  @IsString() target!: string;
}

@Tool({ description: "Deploy the current build to the named target environment.", input: DeployInput, sideEffecting: true, requiresApproval: true, caps: ["egress"] })
class Deploy {
  run({ target }: DeployInput): string {
    return `deployed to ${target}`;
  }
}

// Printed the way the seed prints them (Python reprs), so the outputs compare line for line.
const py = (v: unknown): string =>
  v === true ? "True" : v === false ? "False" : v === null ? "None" : typeof v === "string" ? `'${v}'`
  : Array.isArray(v) ? `[${v.map(py).join(", ")}]`
  : `{${Object.entries(v as object).map(([k, x]) => `'${k}': ${py(x)}`).join(", ")}}`;
const tuple = (xs: readonly string[]): string => `(${xs.map(py).join(", ")}${xs.length === 1 ? "," : ""})`;
const text = (r: { content: unknown }): string => (r.content as Array<{ text: string }>)[0]!.text;

async function main(): Promise<void> {
  const ctx = makeTestCtx();
  const registry = ToolRegistry.fromTools([RunCheck, Deploy]);
  await using spec = await serveRegistry(registry, { name: "engine", ctx });

  console.log("tool_names:       ", tuple(spec.toolNames));
  console.log("requires_approval:", tuple(spec.requiresApproval));
  console.log("auto_approve:     ", tuple(spec.autoApprove));
  console.log("caps:             ", tuple(spec.caps));
  console.log("cli_kwargs keys:  ", py(Object.keys(spec.cliOptions()).sort()));

  await spec.start();
  {
    await using client = await MCPClient.open(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders, timeoutMs: 10_000 }));
    const listed = new Map((await client.listTools()).map((t) => [t.name, t]));
    console.log("advertised:       ", py([...listed.keys()].sort()));
    const runCheck = registry.get("run_check")!;
    console.log("schema unchanged: ", py(JSON.stringify(listed.get("run_check")!.inputSchema) === JSON.stringify(runCheck.schema!.parameters)));
    console.log("deploy _meta:     ", py(listed.get("deploy")!._meta![META_KEY]));
    console.log("deploy read-only: ", py(listed.get("deploy")!.annotations!.readOnlyHint));

    const ok = await client.callTool("run_check", { name: "lint" });
    console.log("ok:               ", text(ok));

    const bad = await client.callTool("run_check", { name: "lint", verbose: true });
    console.log("bad isError:      ", py(bad.isError === true));
    console.log("bad text:         ", text(bad));

    const after = await client.callTool("run_check", { name: "after" });
    console.log("session survived: ", text(after));
  }
  await spec.stop();
  console.log("calls_seen:       ", spec.callsSeen);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
