/**
 * @module samples/approvals-narrowing
 * Narrowing autoAllow by argument: autoAllowWhen can only subtract from
 * autoAllow, and a predicate that throws falls through to the reviewer.
 *
 * The TypeScript twin of the seed's auto_allow_when example; it prints the
 * seed's two result lines (test/mcp-approvals/samples.test.ts compares them).
 */
import type { Asker, Decision, Elicitation } from "arc-agentkit";
import { ApprovalServer, MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";

class Reviewer implements Asker {
  async ask(_request: Elicitation): Promise<Decision> {
    return { kind: "approve", actor: "ops" };
  }
}

const server = new ApprovalServer({
  asker: new Reviewer(),
  autoAllow: ["Read"],
  autoAllowWhen: (_tool, args) => !String(args.file_path ?? "").startsWith("/etc/"),
});

async function main(): Promise<void> {
  await using approvals = await server.start();
  await using client = await MCPClient.open(new StreamableHttpServer({ url: approvals.url, headers: approvals.authHeaders }));
  for (const [label, path] of [
    ["Read README.md   ", "README.md"],
    ["Read /etc/passwd ", "/etc/passwd"],
  ] as const) {
    await client.callTool("approve", { tool_name: "Read", input: { file_path: path } });
    const decision = approvals.decisions.at(-1)!;
    const shown = decision.source === "auto_allow" ? "True" : "False   # falls through to the reviewer";
    console.log(`${label} auto-allowed: ${shown}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
