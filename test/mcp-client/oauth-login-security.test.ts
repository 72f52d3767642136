/**
 * @module test/mcp-client/oauth-login-security.test
 * The shipped OAuth login under attack by another user of the same machine
 * (issue #25.7, .8, .10) against a real MCP server behind OAuth with its own
 * authorization server (a subprocess): the authorization URL never reaches
 * the browser launcher's argv, a callback (or a launch) from another uid is
 * refused, a server-chosen `file:`/`vscode:` URL is printed, not opened, an
 * existing token directory is not chmodded (and refused when others can
 * write it), and an authorization-server document over 1 MiB is refused.
 * The second uid is `nobody`, through `runuser` (the tests run as root).
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MCPClient, oauthProvider, StreamableHttpServer } from "../../src/mcp/index.js";
import type { AgentkitOAuthProvider } from "../../src/mcp/oauth/index.js";
import { startOAuthHttpServer, type ServerProcess } from "./support.js";
import { untilValue } from "../helpers/wait.js";
import { AgentkitError } from "../../src/index.js";

let server: ServerProcess;
let dir: string;
beforeEach(async () => {
  server = await startOAuthHttpServer();
  dir = mkdtempSync(join(tmpdir(), "agentkit-oauth-sec-"));
  chmodSync(dir, 0o755); // nobody must reach the fake browser's files
});
afterEach(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `curl -L` the URL as `user` (root: this test's own user); resolves with the final HTTP status and the body. */
function curl(url: string, user?: string): Promise<{ status: string; body: string }> {
  const args = ["-s", "-L", "-w", "\n%{http_code}", url];
  const [cmd, argv] = user ? ["runuser", ["-u", user, "--", "curl", ...args]] : ["curl", args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { timeout: 15_000 }, (err, stdout) => {
      if (err && !stdout) return reject(err);
      const at = stdout.lastIndexOf("\n");
      resolve({ status: stdout.slice(at + 1), body: stdout.slice(0, at) });
    });
  });
}

/** A bound, started provider whose openUrl only records (the test plays the person, and the attacker). */
async function recordingProvider(tokenDir: string): Promise<{ provider: AgentkitOAuthProvider; opened: URL[] }> {
  const opened: URL[] = [];
  const provider = oauthProvider({ tokenDir, openUrl: (u) => void opened.push(u) }).forServer(server.url);
  return { provider, opened };
}

describe("another local user cannot take part in your login (#25.7)", () => {
  it("a callback from another uid carrying the right state is refused (403) and settles nothing; the person's own then finishes the login", async () => {
    const { provider, opened } = await recordingProvider(join(dir, "tokens"));
    const opening = MCPClient.start(new StreamableHttpServer({ url: server.url, auth: provider }));
    opening.catch(() => {});
    const [authorize] = await untilValue(
      () => opened,
      (o) => o.length === 1,
      "the authorization URL to be opened once",
    );
    // The attacker knows the authorization URL (state, PKCE challenge) and signs in with its own account.
    const attack = await curl(authorize!.href, "nobody");
    expect(attack.status).toBe("403");
    expect(attack.body).toContain("another user of this machine");
    const mine = await curl(authorize!.href);
    expect(mine.status).toBe("200");
    await using client = await opening;
    expect(JSON.stringify((await client.callTool("whoami")).content)).toMatch(/client /);
  });

  it("the default opener hands the browser launcher a one-time loopback link, not the authorization URL; another uid cannot use that link", async () => {
    const fake = join(dir, "browser.sh");
    // The fake browser: record argv, let `nobody` try the link first, then open it as the person.
    writeFileSync(
      fake,
      `#!/bin/sh\nprintf '%s\\n' "$@" > ${dir}/argv\nrunuser -u nobody -- curl -s -o /dev/null -w '%{http_code}' "$1" > ${dir}/nobody\ncurl -s -L -o /dev/null "$1"\n`,
      { mode: 0o755 },
    );
    // No desktop's URL handlers: the launcher falls back to $BROWSER.
    const fakeEnv = {
      DISPLAY: ":0",
      BROWSER: fake,
      HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_DATA_DIRS: dir,
      XDG_CONFIG_HOME: dir,
      XDG_CONFIG_DIRS: dir,
      XDG_CURRENT_DESKTOP: "",
    };
    const saved = Object.fromEntries(Object.keys(fakeEnv).map((k) => [k, process.env[k]]));
    Object.assign(process.env, fakeEnv);
    try {
      await using client = await MCPClient.start(
        new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir: join(dir, "tokens") }) }),
      );
      expect(JSON.stringify((await client.callTool("whoami")).content)).toMatch(/client /);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    const argv = readFileSync(join(dir, "argv"), "utf8");
    expect(argv).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/launch\S*\n$/);
    expect(argv).not.toMatch(/state=|code_challenge|authorize/);
    expect(readFileSync(join(dir, "nobody"), "utf8")).toBe("403");
  });
});

describe("server-chosen URL schemes (#25.8)", () => {
  for (const bad of ["file:///etc/passwd", "vscode://evil.example/run?x=1", "http://evil.example/authorize"]) {
    it(`${bad.split(":")[0]}: ${bad.startsWith("http:") ? "plain http off loopback" : "a non-web scheme"} is printed with a warning, never opened`, async () => {
      const { provider, opened } = await recordingProvider(join(dir, "tokens"));
      await provider.start();
      const writes: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stderr.write;
      try {
        await provider.redirectToAuthorization(new URL(bad));
      } finally {
        process.stderr.write = write;
        await provider.stop();
      }
      expect(opened).toEqual([]);
      expect(writes.join("")).toContain("not opening it: only https URLs (and http on a loopback host) are opened");
      expect(writes.join("")).toContain(new URL(bad).href);
      const refused = await provider.authorizationResponse().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AgentkitError);
      expect(refused).toMatchObject({ code: "oauth_callback" });
    });
  }
});

describe("the token directory (#25.10)", () => {
  it("an existing directory keeps its mode (not chmodded to 0700 on every write)", async () => {
    const tokenDir = join(dir, "mine");
    mkdirSync(tokenDir, { mode: 0o750 });
    chmodSync(tokenDir, 0o750);
    const { provider } = await recordingProvider(tokenDir);
    provider.saveTokens({ access_token: "a", token_type: "bearer" });
    expect(statSync(tokenDir).mode & 0o777).toBe(0o750);
    expect(statSync(provider.tokenFile!).mode & 0o777).toBe(0o600);
  });

  it("a directory it creates is 0700; one that others can write is refused, naming it and the fix", async () => {
    const made = join(dir, "new", "oauth");
    const { provider } = await recordingProvider(made);
    provider.saveTokens({ access_token: "a", token_type: "bearer" });
    expect(statSync(made).mode & 0o777).toBe(0o700);

    const open = join(dir, "shared");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const { provider: bad } = await recordingProvider(open);
    expect(() => bad.saveTokens({ access_token: "a", token_type: "bearer" })).toThrow(
      `the OAuth token directory '${open}' can be written by other users (mode 777); tokens are not kept there. Use a directory only you can write (chmod go-w '${open}'), or another --token-dir / tokenDir`,
    );
    expect(statSync(open).mode & 0o777).toBe(0o777);
    expect(existsSync(bad.tokenFile!)).toBe(false);
  });
});

describe("authorization-server responses are capped at 1 MiB (#25.10)", () => {
  let huge: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => huge?.close(r));
    huge = undefined;
  });

  it("a 60 MiB metadata document is refused, naming the URL and the cap, without being read whole", async () => {
    let port = 0;
    let readWhole = 0;
    let served = 0;
    huge = createServer((req, res) => {
      if (req.url === "/mcp") {
        res
          .writeHead(401, {
            "www-authenticate": `Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource"`,
          })
          .end();
        return;
      }
      // Every metadata document: valid JSON, padded to 60 MiB with spaces.
      served++;
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1 << 20, 0x20);
      let sent = 0;
      res.write("{");
      const pump = (): void => {
        while (sent < 60 * (1 << 20)) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end(`"resource": "http://127.0.0.1:${port}/mcp", "authorization_servers": ["http://127.0.0.1:${port}"]}`, () => readWhole++);
      };
      pump();
    });
    await new Promise<void>((r) => huge!.listen(0, "127.0.0.1", r));
    port = (huge.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}/mcp`;
    const err = await MCPClient.start(
      new StreamableHttpServer({ url, auth: oauthProvider({ tokenDir: join(dir, "tokens"), openUrl: () => {} }) }),
    ).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      new RegExp(`the response from http://127\\.0\\.0\\.1:${port}/\\.well-known/\\S+ is larger than 1 MiB`),
    );
    // The client stopped reading each document: none was sent to the end.
    expect(served).toBeGreaterThan(0);
    expect(readWhole).toBe(0);
  });
});
