/**
 * @module samples/approvals
 * agentkit as the MCP server — driven here by agentkit's own MCP client.
 *
 * The TypeScript twin of the seed's ApprovalServer example. Its output
 * follows the seed's printed output line for line (test/mcp-approvals/
 * samples.test.ts compares them); only the port, the token and the
 * cliOptions line differ (one key more: settingSources ""; and mcpConfig
 * names the 0600 config file, so the token never reaches the CLI's argv).
 */
import type { Asker, Decision, Elicitation } from "arc-agentkit";
import { ApprovalServer, MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";

/** A stand-in Asker. A real one awaits a person over a socket. */
class AutoReviewer implements Asker {
  async ask(request: Elicitation): Promise<Decision> {
    const path = String(request.toolCall?.arguments.file_path ?? "");
    if (path.startsWith("/etc/")) return { kind: "reject", actor: "ci", note: "/etc is out of scope" };
    return { kind: "approve", actor: "ci" };
  }
}

// Printed the way the seed prints them, so the two outputs compare line for line.
const py = (b: boolean): string => (b ? "True" : "False");
const pyList = (items: string[]): string => `[${items.map((s) => `'${s}'`).join(", ")}]`;

async function main(): Promise<void> {
  await using approvals = await new ApprovalServer({ asker: new AutoReviewer(), timeoutMs: 30_000, autoAllow: ["Read"] }).start();
  console.log(`tool_name:  ${approvals.toolName}`);
  console.log(`cli_kwargs: ${JSON.stringify(approvals.cliOptions())}`);

  // Ask it the questions the CLI would ask.
  {
    await using client = await MCPClient.open(new StreamableHttpServer({ url: approvals.url, headers: approvals.authHeaders }));
    console.log(`tools:      ${pyList((await client.listTools()).map((t) => t.name))}`);
    for (const args of [
      { tool_name: "Read", input: { file_path: "/etc/passwd" } },
      { tool_name: "Write", input: { file_path: "/etc/passwd" } },
      { tool_name: "Write", input: { file_path: "out.txt" } },
    ]) {
      const res = await client.callTool("approve", args);
      const first = res.content[0];
      console.log(`  ${args.tool_name.padEnd(6)} -> ${first?.type === "text" ? first.text : ""}`);
    }
  }
  console.log(`prompts_seen: ${approvals.promptsSeen}`);
  for (const d of approvals.decisions) {
    console.log(`  ${d.tool.padEnd(6)} allowed=${py(d.allowed).padEnd(5)} source=${d.source.padEnd(10)} asked=${py(d.asked)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
