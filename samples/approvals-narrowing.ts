/**
 * @module samples/approvals-narrowing
 * Narrowing autoAllow by argument: autoAllowWhen can only subtract from
 * autoAllow, and a predicate that throws falls through to the reviewer.
 *
 * It asks about two Reads: README.md is auto-allowed without asking anyone;
 * /etc/passwd is not, so it falls through to the reviewer (its decision's
 * source is `asker`). test/mcp-approvals/samples.test.ts checks both.
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
  await using client = await MCPClient.start(new StreamableHttpServer({ url: approvals.url, headers: approvals.authHeaders }));
  for (const [label, path] of [
    ["Read README.md   ", "README.md"],
    ["Read /etc/passwd ", "/etc/passwd"],
  ] as const) {
    await client.callTool("approve", { tool_name: "Read", input: { file_path: path } });
    const decision = approvals.decisions.at(-1)!;
    const auto = decision.source === "auto_allow";
    console.log(
      `${label} auto-allowed: ${auto}${auto ? "" : `   // falls through to the reviewer: source=${decision.source} asked=${decision.asked}`}`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
