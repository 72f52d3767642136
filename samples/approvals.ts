/**
 * @module samples/approvals
 * agentkit as the MCP server — driven here by agentkit's own MCP client.
 *
 * It prints the permission-prompt tool's qualified name, the options handed
 * to the Claude CLI (header and variable names only: their values are the
 * credential), the CLI's three questions answered on the wire (Read is
 * auto-allowed, the reviewer refuses the /etc write and approves the other),
 * and one decision record per prompt saying who decided — `auto_allow` with
 * nobody asked, or `asker` (test/mcp-approvals/samples.test.ts checks each).
 */
import { readFileSync } from "node:fs";
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

type ServerEntry = { headers?: Record<string, string>; env?: Record<string, string> } & Record<string, unknown>;

/** An `mcpConfig` entry's servers, read inline or from the file it names, with header and env values left out. */
function servers(entry: string): Record<string, unknown> {
  const doc = JSON.parse(entry.trimStart().startsWith("{") ? entry : readFileSync(entry, "utf8")) as {
    mcpServers: Record<string, ServerEntry>;
  };
  return Object.fromEntries(
    Object.entries(doc.mcpServers).map(([name, { headers, env, ...rest }]) => [
      name,
      { ...rest, headers: headers && Object.keys(headers), env: env && Object.keys(env) },
    ]),
  );
}

/** One line per option the CLI is handed; `mcpConfig` and `env` shown without their secret values. */
function showCliOptions(options: object): void {
  console.log(`cliOptions: ${JSON.stringify(Object.keys(options))}`);
  for (const [key, value] of Object.entries(options)) {
    const shown =
      key === "mcpConfig" ? [value].flat().map((e) => servers(String(e))) : key === "env" ? Object.keys(value as object) : value;
    console.log(`  ${`${key}:`.padEnd(22)}${JSON.stringify(shown)}`);
  }
}

async function main(): Promise<void> {
  await using approvals = await new ApprovalServer({ asker: new AutoReviewer(), timeoutMs: 30_000, autoAllow: ["Read"] }).start();
  console.log(`toolName:   ${approvals.toolName}`);
  showCliOptions(approvals.cliOptions());

  // Ask it the questions the CLI would ask.
  {
    await using client = await MCPClient.start(new StreamableHttpServer({ url: approvals.url, headers: approvals.authHeaders }));
    console.log(`tools:      ${JSON.stringify((await client.listTools()).map((t) => t.name))}`);
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
  console.log(`promptsSeen: ${approvals.promptsSeen}`);
  for (const d of approvals.decisions) {
    console.log(`  ${d.tool.padEnd(6)} allowed=${String(d.allowed).padEnd(5)} source=${d.source.padEnd(10)} asked=${d.asked}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
