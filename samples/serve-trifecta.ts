/**
 * @module samples/serve-trifecta
 * The Rule-of-Two check still applies to tools that moved behind MCP.
 *
 * The caps travel with the served tools, so RunPolicy — on your side, before
 * you start the CLI — still sees the set it needs to see, and refuses the
 * lethal trifecta. Nothing on the wire enforces it.
 */
import { RunPolicy, ToolRegistry, tool } from "arc-agentkit";
import { serveRegistry, stdioCommand } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

const oneString = (key: string, ...more: string[]) => ({
  type: "object",
  properties: Object.fromEntries([key, ...more].map((k) => [k, { type: "string" }])),
  required: [key, ...more],
  additionalProperties: false,
});

const readRecord = tool(
  {
    description: "Read one customer record out of the private store.",
    sideEffecting: false,
    caps: ["private_data"],
    input: oneString("customer"),
  },
  function readRecord({ customer }: { customer: string }) {
    return customer;
  },
);

const fetchPage = tool(
  {
    description: "Fetch a page of untrusted web content and return its text.",
    sideEffecting: false,
    caps: ["untrusted_content"],
    input: oneString("url"),
  },
  function fetchPage({ url }: { url: string }) {
    return url;
  },
);

const notify = tool(
  {
    description: "Post a message to the named chat channel — the egress leg.",
    sideEffecting: true,
    caps: ["egress"],
    input: oneString("channel", "text"),
  },
  function notify({ channel }: { channel: string; text: string }) {
    return `sent to ${channel}`;
  },
);

async function main(): Promise<void> {
  const registry = ToolRegistry.fromTools([readRecord, fetchPage, notify]);
  await using spec = await serveRegistry(registry, {
    name: "engine",
    ctx: makeTestCtx(),
    transport: "stdio",
    command: stdioCommand(new URL("./serve-stdio-child.js", import.meta.url)),
  });
  await spec.start();
  const verdict = new RunPolicy().check(registry.tools());
  console.log("spec.caps:", JSON.stringify(spec.caps));
  console.log("allowed:  ", verdict.allowed);
  console.log("reason:   ", verdict.reason);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
