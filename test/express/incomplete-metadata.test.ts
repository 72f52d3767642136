/**
 * @module test/express/incomplete-metadata.test
 * `clientCredentials` against an authorization server whose RFC 8414 metadata
 * lacks `authorization_endpoint` (issue #43 point 1): `MCPClient.start` fails
 * with one sentence naming the missing field, not the SDK's schema dump. A
 * real authorization server and a real hosted module on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { clientCredentials, MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import { startAuthServer } from "../helpers/oauth-server.js";
import { closeAll, hosted } from "./kit.js";

afterEach(closeAll);

const echo = tool({ name: "echo", description: "Echo.", sideEffecting: false }, () => "echo");

describe("clientCredentials and an issuer's incomplete metadata", () => {
  it("names the missing field in one sentence", async () => {
    await using as = await startAuthServer({
      clients: [{ id: "svc", secret: "s3cret", scopes: [] }],
      omitMetadata: ["authorization_endpoint"],
    });
    const h = await hosted([echo], {
      authorizationServers: [as.issuer],
      verifyAccessToken: () => ({ clientId: "svc", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 60, resource: "x" }),
    });
    const err = await MCPClient.start(
      new StreamableHttpServer({ url: h.url, auth: clientCredentials({ clientId: "svc", clientSecret: "s3cret" }) }),
    ).then(
      async (c) => (await c.stop(), undefined),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(
      /^MCPClient could not open streamable HTTP server http:\S+: the OAuth metadata the client fetched has no 'authorization_endpoint' \(expected a string; the MCP SDK needs it even for client_credentials\)\./,
    );
    expect(err!.message).not.toContain("invalid_type");
    expect(err!.message).not.toContain("s3cret");
  });
});
