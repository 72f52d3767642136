/**
 * @module test/mcp-client/oauth.test
 * The shipped OAuth provider against a real MCP server behind OAuth 2.1 with
 * its own authorization server (the SDK's auth router, in a subprocess):
 * dynamic registration, authorization code + PKCE through the loopback
 * redirect, a 0600 token file per server URL, refresh on an expired access
 * token, and a revoked refresh token ending in "log in again".
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MCPClient, oauthProvider, StreamableHttpServer } from "../../src/mcp/index.js";
import { captureLog, startOAuthHttpServer, type ServerProcess } from "./support.js";
import { AgentkitError, OAuthLoginRequiredError } from "../../src/index.js";

let server: ServerProcess;
let tokenDir: string;
beforeEach(async () => {
  server = await startOAuthHttpServer();
  tokenDir = mkdtempSync(join(tmpdir(), "agentkit-oauth-"));
});
afterEach(async () => {
  await server.stop();
  rmSync(tokenDir, { recursive: true, force: true });
});

/** A headless person: follows the authorization URL; the authorization server redirects straight back to the listener. */
function headless(): { opened: URL[]; openUrl: (u: URL) => Promise<void> } {
  const opened: URL[] = [];
  return {
    opened,
    openUrl: async (u) => {
      opened.push(u);
      await (await fetch(u, { redirect: "follow" })).text();
    },
  };
}

const hook = async (path: string, method = "POST") =>
  (await fetch(new URL(path, server.url), { method })).json() as Promise<Record<string, number>>;
const whoami = async (c: MCPClient) => JSON.stringify((await c.callTool("whoami")).content);

describe("oauthProvider against an MCP server behind OAuth 2.1", () => {
  it("logs in (registration, code + PKCE on 127.0.0.1), keeps the tokens in a 0600 file, refreshes an expired token, and a new client reuses the file", async () => {
    const person = headless();
    const log = captureLog();
    try {
      const auth = oauthProvider({ tokenDir, openUrl: person.openUrl });
      await using client = await MCPClient.start(new StreamableHttpServer({ url: server.url, auth }));
      expect(await whoami(client)).toMatch(/client [\w-]+/);
      expect(person.opened).toHaveLength(1);
      const authorize = person.opened[0]!;
      expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorize.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback/);

      const files = readdirSync(tokenDir);
      expect(files).toHaveLength(1);
      const file = join(tokenDir, files[0]!);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(tokenDir).mode & 0o777).toBe(0o700);
      const stored = JSON.parse(readFileSync(file, "utf8")) as {
        serverUrl: string;
        tokens: { access_token: string; refresh_token: string };
      };
      expect(stored.serverUrl).toBe(server.url);
      const first = stored.tokens.access_token;

      await hook("/test/expire");
      expect(await whoami(client)).toMatch(/client /); // 401 -> refresh -> retried
      const stats = await hook("/test/stats", "GET");
      expect(stats).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1, refreshes: 1 });
      const refreshed = JSON.parse(readFileSync(file, "utf8")) as typeof stored;
      expect(refreshed.tokens.access_token).not.toBe(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      await using again = await MCPClient.start(
        new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir, openUrl: person.openUrl }) }),
      );
      expect(await whoami(again)).toMatch(/client /);
      expect(person.opened).toHaveLength(1);
      expect((await hook("/test/stats", "GET")).authorizations).toBe(1);
      // Never logged.
      expect(log.warnings.join("\n")).not.toContain(refreshed.tokens.access_token);
      expect(log.warnings.join("\n")).not.toContain(refreshed.tokens.refresh_token);
    } finally {
      log.restore();
    }
  });

  it("a revoked refresh token gives an error telling the user to log in again (no surprise login)", async () => {
    const person = headless();
    {
      await using client = await MCPClient.start(
        new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir, openUrl: person.openUrl }) }),
      );
      await whoami(client);
    }
    await hook("/test/revoke");
    await hook("/test/expire");
    const err = await MCPClient.start(
      new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir, openUrl: person.openUrl }) }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthLoginRequiredError);
    expect((err as OAuthLoginRequiredError).code).toBe("oauth_login_required");
    expect((err as Error).message).toBe(
      `OAuth for ${server.url}: the authorization server refused the stored refresh token (revoked or expired); log in again with: agentkit login ${server.url}`,
    );
    expect(person.opened).toHaveLength(1);
    expect((await hook("/test/stats", "GET")).refused).toBe(1);
  });

  it("keeps the SDK's issuer stamps and discovery state in the token file, verbatim (SEP-2352)", async () => {
    const person = headless();
    await using client = await MCPClient.start(
      new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir, openUrl: person.openUrl }) }),
    );
    await whoami(client);
    const issuer = new URL("/", server.url).href;
    const stored = JSON.parse(readFileSync(join(tokenDir, readdirSync(tokenDir)[0]!), "utf8")) as {
      tokens: { issuer?: string };
      client: { issuer?: string };
      discovery?: { authorizationServerMetadata?: { issuer?: string } };
    };
    expect(stored.tokens.issuer).toBe(issuer);
    expect(stored.client.issuer).toBe(issuer);
    expect(stored.discovery?.authorizationServerMetadata?.issuer).toBe(issuer);
  });

  it("a redirect back naming another authorization server (iss) is refused before the code is exchanged; the right iss logs in", async () => {
    const person = headless();
    await fetch(new URL("/test/iss?value=https://evil.example", server.url), { method: "POST" });
    const err = await MCPClient.start(
      new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir, openUrl: person.openUrl }) }),
    ).catch((e: unknown) => e);
    if (err instanceof MCPClient) await err.stop();
    expect(err, String((err as Error).cause ?? err)).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("oauth_callback");
    expect((err as Error).message).toContain(
      `OAuth for ${server.url}: the redirect back came from another authorization server ('iss' "https://evil.example") than the one this login went to; refused, nothing was exchanged (RFC 9207)`,
    );
    expect((await hook("/test/stats", "GET")).codeExchanges).toBe(0);
    await fetch(new URL(`/test/iss?value=${encodeURIComponent(new URL("/", server.url).href)}`, server.url), { method: "POST" });
    await using client = await MCPClient.start(
      new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir, openUrl: person.openUrl }) }),
    );
    expect(await whoami(client)).toMatch(/client /);
    expect((await hook("/test/stats", "GET")).codeExchanges).toBe(1);
  });

  it('auth: "oauth" and bad options', () => {
    expect(new StreamableHttpServer({ url: server.url, auth: "oauth" }).auth).toBeDefined();
    expect(() => new StreamableHttpServer({ url: server.url, auth: "basic" as never })).toThrow(
      /'auth' must be "oauth" or an OAuthClientProvider/,
    );
    expect(() => oauthProvider({ scopes: ["a b"] })).toThrow(/'scopes' must be an array of scope names without spaces/);
    expect(() => oauthProvider({ clientMetadataUrl: "http://x/y" })).toThrow(/'clientMetadataUrl' must be an https URL with a path/);
    expect(() => oauthProvider({ allowIssuerMismatch: "yes" as never })).toThrow(
      /'allowIssuerMismatch' must be true or false \(default false\)/,
    );
    // An unknown option is refused by name with the accepted ones (it used to be dropped silently), nested ones too.
    expect(() => oauthProvider({ scope: ["mcp:read"] } as never)).toThrow(
      "oauthProvider: unknown option 'scope'. Accepted options: openUrl, tokenDir, clientName, scopes, client, clientMetadataUrl, callbackTimeoutMs, allowIssuerMismatch",
    );
    expect(() => oauthProvider({ client: { clientId: "c", secret: "s" } } as never)).toThrow(
      "oauthProvider: 'client': unknown option 'secret'. Accepted options: clientId, clientSecret",
    );
    expect(() => oauthProvider({ client: { clientId: "" } })).toThrow(
      "oauthProvider: 'client.clientId' is required (the pre-registered client's id), got string \"\"",
    );
  });
});
