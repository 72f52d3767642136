/**
 * @module bin/login.command
 * `agentkit login <url>`: run the OAuth login for one MCP server once (the
 * shipped provider: discovery, registration, code + PKCE through a loopback
 * redirect) and keep its tokens in that server's 0600 file.
 */
import { MCPClient, oauthProvider, StreamableHttpServer } from "../mcp/index.js";
import { flag, listOption, parseCommandLine, parseMilliseconds, stringOption, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";
import type { FailureContext } from "./failure-line.js";
import { LOGIN_HELP } from "./help.js";

const OPTIONS: OptionTable = {
  "token-dir": { type: "string" },
  scope: { type: "string", multiple: true },
  "client-name": { type: "string" },
  "print-url": { type: "boolean" },
  "timeout-ms": { type: "string" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** How long `login` waits for a person to finish, by default: 5 minutes. */
const LOGIN_TIMEOUT_MS = 300_000;

function printUrl(url: URL): void {
  process.stderr.write(`To authorize, open this URL in a browser:\n\n  ${url.href}\n\n`);
}

/**
 * Run `agentkit login` with `argv` (the words after `login`); resolves with
 * the exit code. Stored tokens for the server are dropped first, so it always
 * logs in afresh; the registration is kept. Stdout gets one line naming where
 * the tokens were kept (never the tokens).
 *
 * @throws UsageError for a bad command line; OAuth and connection errors otherwise (see failure-line).
 */
export async function loginCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const line = parseCommandLine("login", argv, OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(LOGIN_HELP);
    return 0;
  }
  const [url, extra] = line.positionals;
  if (url === undefined || extra !== undefined)
    throw new UsageError(
      `agentkit login: give exactly one MCP server URL (agentkit login https://mcp.example.com/mcp), got ${line.positionals.length}`,
    );
  const timeoutMs = parseMilliseconds("login", "timeout-ms", stringOption(line, "timeout-ms")) ?? LOGIN_TIMEOUT_MS;
  context.timeoutMs = timeoutMs;
  context.timeoutFlag = "--timeout-ms";
  const scopes = listOption(line, "scope");
  const clientName = stringOption(line, "client-name");
  const tokenDir = stringOption(line, "token-dir");
  const provider = oauthProvider({
    ...(tokenDir !== undefined ? { tokenDir } : {}),
    ...(scopes.length ? { scopes } : {}),
    ...(clientName !== undefined ? { clientName } : {}),
    ...(flag(line, "print-url") ? { openUrl: printUrl } : {}),
    callbackTimeoutMs: timeoutMs,
  });
  let server: StreamableHttpServer;
  try {
    // The request waits for the person; the login's own deadline (a clearer message) fires first.
    server = new StreamableHttpServer({ url, auth: provider, timeoutMs: timeoutMs + 10_000 });
  } catch (err) {
    throw new UsageError(`agentkit login: ${(err as Error).message}`, { cause: err });
  }
  const bound = server.auth as ReturnType<typeof oauthProvider>;
  bound.forgetTokens();
  const client = await MCPClient.start(server);
  await client.stop();
  process.stdout.write(`logged in to ${server}; tokens kept in ${bound.tokenFile}\n`);
  return 0;
}
