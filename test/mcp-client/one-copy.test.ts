/**
 * @module test/mcp-client/one-copy.test
 * One SDK copy: `MCPClient` imports `@modelcontextprotocol/client` by
 * `import()` when it opens, so an ESM app that imports the SDK itself holds
 * the same module, and the SDK's error classes are the app's. Proven in a
 * scratch ESM app under os.tmpdir() (the built package copied in, the SDK
 * linked from this repo's node_modules): a request error's cause is the
 * app's `ProtocolError` (the very class, not a look-alike), and an
 * `UnauthorizedError` thrown by the app's own OAuth provider is recognised.
 * Without the client SDK, `MCPClient.start` names the install line.
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runIn, scratchProject } from "../helpers/scratch-project.js";
import { NODE, ROOT, fixture, startBearerHttpServer } from "./support.js";

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

const app = (withheld: readonly string[] = []): string => (scratch = scratchProject(ROOT, withheld));

describe("one copy of the client SDK, shared with an ESM app", () => {
  it("a request error's cause is the app's own ProtocolError class", () => {
    const server = JSON.stringify(fixture("counting-stdio-server.mjs"));
    const out = runIn<{ sameClass: boolean; instance: boolean; code: number; rpcCode: number }>(
      NODE,
      app(),
      `import { ProtocolError } from "@modelcontextprotocol/client";
       import { MCPClient, StdioServer } from "arc-agentkit/mcp";
       const client = await MCPClient.start(new StdioServer({ command: process.execPath, args: [${server}] }));
       const err = await client.readResource("docs://missing").catch((e) => e);
       await client.stop();
       console.log(JSON.stringify({ sameClass: err.cause?.constructor === ProtocolError, instance: err.cause instanceof ProtocolError, code: err.cause?.code, rpcCode: err.rpcCode }));`,
    );
    expect(out).toEqual({ sameClass: true, instance: true, code: -32602, rpcCode: -32602 });
  });

  it("an UnauthorizedError from the app's own OAuth provider is recognised, and reaches the app as its own class", async () => {
    await using server = await startBearerHttpServer("one-copy-token");
    const out = runIn<{ name: string; sameClass: boolean; message: string }>(
      NODE,
      app(),
      `import { UnauthorizedError } from "@modelcontextprotocol/client";
       import { MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
       const provider = {
         redirectUrl: "http://127.0.0.1:1/callback",
         clientMetadata: { redirect_uris: ["http://127.0.0.1:1/callback"], client_name: "app" },
         clientInformation: () => undefined,
         tokens: () => { throw new UnauthorizedError("the app has no login for this server"); },
         saveTokens: () => {},
         redirectToAuthorization: () => { throw new UnauthorizedError("the app will not open a browser"); },
         saveCodeVerifier: () => {},
         codeVerifier: () => "v",
       };
       const err = await MCPClient.start(new StreamableHttpServer({ url: ${JSON.stringify(server.url)}, auth: provider })).catch((e) => e);
       console.log(JSON.stringify({ name: err.name, sameClass: err.cause?.constructor === UnauthorizedError, message: err.message }));`,
    );
    expect(out.name).toBe("McpConnectError");
    expect(out.sameClass).toBe(true);
    expect(out.message).toContain("the app has no login for this server");
    expect(out.message).toContain("(not authorized: the server's OAuth provider has no usable login; log in again)");
  });

  it("without @modelcontextprotocol/client: importing works, MCPClient.start names the install line", () => {
    const out = runIn<{ name: string; code: string; message: string }>(
      NODE,
      app(["@modelcontextprotocol/client"]),
      `import { MCPClient, StdioServer } from "arc-agentkit/mcp";
       const err = await MCPClient.start(new StdioServer({ command: process.execPath, args: ["-e", ""] })).catch((e) => e);
       console.log(JSON.stringify({ name: err.name, code: err.code, message: err.message }));`,
    );
    expect(out.name).toBe("MissingPeerError");
    expect(out.code).toBe("missing_peer");
    expect(out.message).toContain("npm install @modelcontextprotocol/client");
  });
});
