/**
 * @module samples/serve-registry
 * agentkit as the MCP server: a ToolRegistry the Claude CLI can call.
 *
 * Driven by agentkit's own MCP client over a real loopback socket, because
 * that is the only way to show the error contract holding. It prints the
 * qualified names and declarations the spec publishes, the option keys it
 * hands the CLI, that the advertised schema is the registry's byte for byte,
 * the declarations under `_meta`, a bad call answered as a tool error (naming
 * the unexpected and the accepted arguments) on a session that survives it,
 * and how many calls reached the server (test/mcp-serve/samples.test.ts
 * checks each).
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

@Tool({
  description: "Deploy the current build to the named target environment.",
  input: DeployInput,
  sideEffecting: true,
  requiresApproval: true,
  caps: ["egress"],
})
class Deploy {
  run({ target }: DeployInput): string {
    return `deployed to ${target}`;
  }
}

const text = (r: { content: unknown }): string => (r.content as Array<{ text: string }>)[0]!.text;

async function main(): Promise<void> {
  const ctx = makeTestCtx();
  const registry = ToolRegistry.fromTools([RunCheck, Deploy]);
  await using spec = await serveRegistry(registry, { name: "engine", ctx });

  console.log("toolNames:          ", JSON.stringify(spec.toolNames));
  console.log("requiresApproval:   ", JSON.stringify(spec.requiresApproval));
  console.log("autoApprove:        ", JSON.stringify(spec.autoApprove));
  console.log("caps:               ", JSON.stringify(spec.caps));
  console.log("cliOptions keys:    ", JSON.stringify(Object.keys(spec.cliOptions()).sort()));

  await spec.start();
  {
    await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders, timeoutMs: 10_000 }));
    const listed = new Map((await client.listTools()).map((t) => [t.name, t]));
    console.log("advertised:         ", JSON.stringify([...listed.keys()].sort()));
    const runCheck = registry.get("run_check")!;
    console.log(
      "schema unchanged:   ",
      JSON.stringify(listed.get("run_check")!.inputSchema) === JSON.stringify(runCheck.schema!.parameters),
    );
    console.log("deploy _meta:       ", JSON.stringify(listed.get("deploy")!._meta![META_KEY]));
    console.log("deploy readOnlyHint:", listed.get("deploy")!.annotations!.readOnlyHint);

    const ok = await client.callTool("run_check", { name: "lint" });
    console.log("ok:                 ", text(ok));

    const bad = await client.callTool("run_check", { name: "lint", verbose: true });
    console.log("bad isError:        ", bad.isError === true);
    console.log("bad text:           ", text(bad));

    const after = await client.callTool("run_check", { name: "after" });
    console.log("session survived:   ", text(after));
  }
  await spec.stop();
  console.log("callsSeen:          ", spec.callsSeen);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
