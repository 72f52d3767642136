/**
 * @module test/mcp-serve/stdio-extras.test
 * The stdio half serves resources and prompts too: openStdioServing on a pair
 * of pipes, driven by the SDK Client over those pipes (newline-delimited
 * JSON-RPC, as a spawning CLI speaks it), including progress and a log line.
 */
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { openStdioServing } from "../../src/mcp/serve/serve-stdio.js";

/** The client end of two pipes: writes to the server's stdin, reads its stdout. */
function pipeTransport(toServer: PassThrough, fromServer: PassThrough): Transport {
  const buffer = new ReadBuffer();
  const t: Transport = {
    async start() {
      fromServer.on("data", (chunk: Buffer) => {
        buffer.append(chunk);
        for (let m = buffer.readMessage(); m; m = buffer.readMessage()) t.onmessage?.(m);
      });
    },
    async send(message: JSONRPCMessage) {
      toServer.write(serializeMessage(message));
    },
    async close() {
      toServer.end();
      t.onclose?.();
    },
  };
  return t;
}

describe("openStdioServing({ resources, prompts })", () => {
  it("lists and reads a resource, gets a prompt, and carries a tool's log line", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const busy = tool({ name: "busy", description: "Logs, then answers.", sideEffecting: false }, (_i, ctx) => {
      ctx.log("notice", "working");
      return "done";
    });
    const serving = await openStdioServing([busy], {
      name: "piped",
      ctx: makeTestCtx(),
      stdin,
      stdout,
      resources: [{ uri: "pipe://readme", name: "readme", read: () => "over stdio" }],
      prompts: { hello: "Say hello." },
    });
    const client = new Client({ name: "pipe-test", version: "0" });
    await client.connect(pipeTransport(stdin, stdout));
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    expect((await client.listResources()).resources).toEqual([{ uri: "pipe://readme", name: "readme" }]);
    expect((await client.readResource({ uri: "pipe://readme" })).contents).toEqual([
      { uri: "pipe://readme", mimeType: "text/plain", text: "over stdio" },
    ]);
    expect((await client.getPrompt({ name: "hello" })).messages).toEqual([{ role: "user", content: { type: "text", text: "Say hello." } }]);
    expect((await client.callTool({ name: "busy", arguments: {} })).content).toEqual([{ type: "text", text: "done" }]);
    expect(logs).toEqual([{ level: "notice", logger: "piped", data: "working" }]);
    await client.close();
    await serving.closed;
  });
});
