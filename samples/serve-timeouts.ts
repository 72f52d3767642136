/**
 * @module samples/serve-timeouts
 * A tool's own TimeoutError is not this server's deadline firing.
 *
 * It prints two different sentences: the server's deadline firing, and a
 * tool's own TimeoutError reported as that tool's failure. `slowBuild` waits
 * far past the server's 50 ms deadline; when the deadline fires, the call is
 * answered and the tool's context is aborted, which is how a TypeScript tool
 * is "abandoned" (it stops waiting, so this process can exit).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { tool, type RunContext } from "arc-agentkit";
import { MCPClient, StreamableHttpServer, serveRegistry } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

/** What a real client library throws when an upstream read times out. */
class TimeoutError extends Error {}

const NO_ARGS = { type: "object", properties: {}, additionalProperties: false };

const slowBuild = tool(
  { description: "Wait far past the server's deadline, so only the deadline can end it.", sideEffecting: false, input: NO_ARGS },
  async function slowBuild(_input: Record<string, never>, ctx: RunContext) {
    await sleep(3_600_000, undefined, { signal: ctx.signal });
    return "never";
  },
);

const callUpstream = tool(
  {
    description: "Read the named upstream, failing the way a real client fails.",
    sideEffecting: false,
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"], additionalProperties: false },
  },
  function callUpstream(): string {
    throw new TimeoutError("upstream read timed out after 3s");
  },
);

const text = (r: { content: unknown }): string => (r.content as Array<{ text: string }>)[0]!.text;

async function main(): Promise<void> {
  const spec = await serveRegistry([slowBuild, callUpstream], { name: "engine", ctx: makeTestCtx(), timeoutMs: 50 });
  let ours, theirs;
  {
    await using _ = spec;
    await spec.start();
    await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders, timeoutMs: 10_000 }));
    ours = await client.callTool("slow_build", {});
    theirs = await client.callTool("call_upstream", { url: "http://x" });
  }
  console.log("our deadline:", text(ours));
  console.log("their error: ", text(theirs));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
