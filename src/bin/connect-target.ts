/**
 * @module bin/connect-target
 * The server `inspect` and `call` talk to: `-- <command...>` (stdio) or
 * `--url URL [--header 'Name: value']... [--header-env Name=VAR]...` (streamable
 * HTTP; `--header-env` reads the value from the environment), opened with a
 * deadline and a spinner.
 */
import type { MCPClient, StdioServer, StreamableHttpServer } from "../mcp/client/index.js";
import { listOption, parseEnv, parseHeaderEnv, parseHeaders, parseMilliseconds, stringOption, type CommandLine, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";
import { withSpinner } from "./spinner.js";

/** The default deadline of connecting and of each request: 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The options every command that connects to a server accepts. */
export const TARGET_OPTIONS: OptionTable = {
  url: { type: "string" },
  header: { type: "string", multiple: true },
  "header-env": { type: "string", multiple: true },
  env: { type: "string", multiple: true },
  cwd: { type: "string" },
  "timeout-ms": { type: "string" },
};

/** Which server to open, as the command line said. */
export type Target =
  | { readonly kind: "stdio"; readonly command: string; readonly args: readonly string[]; readonly env: Record<string, string>; readonly cwd?: string; readonly timeoutMs: number }
  | { readonly kind: "http"; readonly url: string; readonly headers: Record<string, string>; readonly timeoutMs: number };

/**
 * The target of a parsed command line: exactly one of `--url` or `-- <command...>`.
 *
 * @throws UsageError when neither or both are given, or a flag belongs to the other kind.
 */
export function targetOf(command: string, line: CommandLine): Target {
  const url = stringOption(line, "url");
  const timeoutMs = parseMilliseconds(command, "timeout-ms", stringOption(line, "timeout-ms")) ?? DEFAULT_TIMEOUT_MS;
  const headers = listOption(line, "header");
  const headerEnv = listOption(line, "header-env");
  const env = listOption(line, "env");
  const cwd = stringOption(line, "cwd");
  const usage = `agentkit ${command} ... -- <command...>  or  agentkit ${command} ... --url URL [--header 'Name: value']`;
  if (url !== undefined && line.rest !== null) throw new UsageError(`agentkit ${command}: give --url or a command after '--', not both: ${usage}`);
  if (url === undefined && line.rest === null) throw new UsageError(`agentkit ${command}: say which server to connect to: ${usage}`);
  if (url !== undefined) {
    if (env.length || cwd !== undefined) throw new UsageError(`agentkit ${command}: --env and --cwd are for a server command after '--', not for --url`);
    if (!/^https?:\/\//i.test(url)) throw new UsageError(`agentkit ${command}: --url must be an http:// or https:// URL (e.g. http://127.0.0.1:8080/mcp), got '${url}'`);
    try {
      new URL(url);
    } catch {
      throw new UsageError(`agentkit ${command}: --url is not a valid URL: '${url}'`);
    }
    return { kind: "http", url, headers: httpHeaders(command, headers, headerEnv), timeoutMs };
  }
  if (headers.length || headerEnv.length) throw new UsageError(`agentkit ${command}: --header${headers.length ? "" : "-env"} is for --url; a stdio server takes --env NAME=value instead`);
  const [cmd, ...args] = line.rest!;
  if (!cmd) throw new UsageError(`agentkit ${command}: nothing after '--'; give the server command, e.g. -- npx -y @modelcontextprotocol/server-everything`);
  return { kind: "stdio", command: cmd, args, env: parseEnv(command, env), ...(cwd !== undefined ? { cwd } : {}), timeoutMs };
}

/** `--header` and `--header-env` together; one header named by both (in any letter case) is refused. */
function httpHeaders(command: string, headers: readonly string[], headerEnv: readonly string[]): Record<string, string> {
  const literal = parseHeaders(command, headers);
  const fromEnv = parseHeaderEnv(command, headerEnv);
  const lower = new Set(Object.keys(literal).map((k) => k.toLowerCase()));
  const both = Object.keys(fromEnv).find((k) => lower.has(k.toLowerCase()));
  if (both) throw new UsageError(`agentkit ${command}: header '${both}' is given by both --header and --header-env; give it once`);
  return { ...literal, ...fromEnv };
}

/** The client-side server config of `target`. */
export async function serverOf(target: Target): Promise<StdioServer | StreamableHttpServer> {
  const { StdioServer, StreamableHttpServer } = await import("../mcp/client/index.js");
  return target.kind === "stdio"
    ? new StdioServer({ command: target.command, args: target.args, env: target.env, ...(target.cwd !== undefined ? { cwd: target.cwd } : {}) })
    : new StreamableHttpServer({ url: target.url, headers: target.headers, timeoutMs: target.timeoutMs });
}

/**
 * Open `target` within its deadline (spawn or connect, then initialize), with
 * a spinner on stderr while waiting (only on a TTY). Every later request on
 * the client has the same deadline.
 *
 * @throws McpConnectError (its `cause` says why: a 401, a timeout, an exit).
 */
export async function openTarget(target: Target): Promise<MCPClient> {
  const { MCPClient } = await import("../mcp/client/index.js");
  const server = await serverOf(target);
  return withSpinner(`connecting to ${server}…`, () =>
    MCPClient.open(server, { signal: AbortSignal.timeout(target.timeoutMs), requestTimeoutMs: target.timeoutMs }),
  );
}
