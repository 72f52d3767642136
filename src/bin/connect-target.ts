/**
 * @module bin/connect-target
 * The server `inspect` and `call` talk to: `-- <command...>` (stdio),
 * `--url URL [--header 'Name: value']... [--header-env Name=VAR]...` (streamable
 * HTTP; `--header-env` reads the value from the environment), or
 * `--mcp-config FILE [--server NAME]` (a server of the document `agentkit
 * serve` writes, its token read from the file), opened with a deadline and a
 * spinner.
 */
import { readFileSync } from "node:fs";
import type { MCPClient, ProtocolChoice, StdioServer, StreamableHttpServer } from "../mcp/client/index.js";
import { PROTOCOL_CHOICES } from "../mcp/client/servers.js";
import { pyList } from "../util/format.js";
import {
  listOption,
  parseEnv,
  parseHeaderEnv,
  parseHeaders,
  parseMilliseconds,
  stringOption,
  type CommandLine,
  type OptionTable,
} from "./args.js";
import { UsageError } from "./cli.error.js";
import { withSpinner } from "./spinner.js";

/** The default deadline of connecting and of each request: 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * How long `agentkit call` lets the tool's call go without a word from the
 * server when `--timeout-ms` is not given: 2 minutes. Each progress
 * notification restarts it, and an agentkit server sends one every 30 s
 * while a person decides, so such a call waits as long as the person takes.
 */
export const DEFAULT_CALL_SILENCE_MS = 120_000;

/** The options every command that connects to a server accepts. */
export const TARGET_OPTIONS: OptionTable = {
  url: { type: "string" },
  header: { type: "string", multiple: true },
  "header-env": { type: "string", multiple: true },
  env: { type: "string", multiple: true },
  cwd: { type: "string" },
  "timeout-ms": { type: "string" },
  protocol: { type: "string" },
  "mcp-config": { type: "string" },
  server: { type: "string" },
};

/** What every target has: its deadline (and whether `--timeout-ms` set it) and the protocol asked for. */
interface TargetCommon {
  readonly timeoutMs: number;
  /** True when `--timeout-ms` was given (else `timeoutMs` is the default). */
  readonly timeoutGiven: boolean;
  readonly protocol?: ProtocolChoice;
}

/** Which server to open, as the command line said. */
export type Target =
  | (TargetCommon & {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Record<string, string>;
      readonly cwd?: string;
    })
  | (TargetCommon & { readonly kind: "http"; readonly url: string; readonly headers: Record<string, string> });

/** `--protocol`: one of the client's protocol choices. */
function protocolOption(command: string, value: string | undefined): { protocol?: ProtocolChoice } {
  if (value === undefined) return {};
  if (!(PROTOCOL_CHOICES as readonly string[]).includes(value))
    throw new UsageError(`agentkit ${command}: --protocol must be one of ${pyList(PROTOCOL_CHOICES)} (default auto), got '${value}'`);
  return { protocol: value as ProtocolChoice };
}

/**
 * The target of a parsed command line: exactly one of `--url` or `-- <command...>`.
 *
 * @throws UsageError when neither or both are given, or a flag belongs to the other kind.
 */
export function targetOf(command: string, line: CommandLine): Target {
  const servers = configTargets(command, line);
  if (servers) {
    if (servers.length === 1) return servers[0]!.target;
    throw new UsageError(
      `agentkit ${command}: '${stringOption(line, "mcp-config")}' holds ${servers.length} servers ` +
        `${pyList(servers.map((s) => s.name))}; pick one with --server <name>`,
    );
  }
  const url = stringOption(line, "url");
  const common = commonOf(command, line);
  const headers = listOption(line, "header");
  const headerEnv = listOption(line, "header-env");
  const env = listOption(line, "env");
  const cwd = stringOption(line, "cwd");
  const usage =
    `agentkit ${command} ... -- <command...>  or  agentkit ${command} ... --url URL [--header 'Name: value']  or  ` +
    `agentkit ${command} ... --mcp-config <file> [--server <name>]`;
  if (url !== undefined && line.rest !== null)
    throw new UsageError(`agentkit ${command}: give --url or a command after '--', not both: ${usage}`);
  if (url === undefined && line.rest === null) throw new UsageError(`agentkit ${command}: say which server to connect to: ${usage}`);
  if (url !== undefined) {
    if (env.length || cwd !== undefined)
      throw new UsageError(`agentkit ${command}: --env and --cwd are for a server command after '--', not for --url`);
    if (!/^https?:\/\//i.test(url))
      throw new UsageError(`agentkit ${command}: --url must be an http:// or https:// URL (e.g. http://127.0.0.1:8080/mcp), got '${url}'`);
    try {
      new URL(url);
    } catch {
      throw new UsageError(`agentkit ${command}: --url is not a valid URL: '${url}'`);
    }
    return { kind: "http", url, headers: httpHeaders(command, headers, headerEnv), ...common };
  }
  if (headers.length || headerEnv.length)
    throw new UsageError(
      `agentkit ${command}: --header${headers.length ? "" : "-env"} is for --url; a stdio server takes --env NAME=value instead`,
    );
  const [cmd, ...args] = line.rest!;
  if (!cmd)
    throw new UsageError(
      `agentkit ${command}: nothing after '--'; give the server command, e.g. -- npx -y @modelcontextprotocol/server-everything`,
    );
  return { kind: "stdio", command: cmd, args, env: parseEnv(command, env), ...(cwd !== undefined ? { cwd } : {}), ...common };
}

/** The deadline and protocol every target has. */
function commonOf(command: string, line: CommandLine): TargetCommon {
  const given = parseMilliseconds(command, "timeout-ms", stringOption(line, "timeout-ms"));
  return {
    timeoutMs: given ?? DEFAULT_TIMEOUT_MS,
    timeoutGiven: given !== undefined,
    ...protocolOption(command, stringOption(line, "protocol")),
  };
}

/** One server of an `--mcp-config` document, by its name there. */
export interface NamedTarget {
  readonly name: string;
  readonly target: Target;
}

/**
 * `--mcp-config FILE [--server NAME]`: the servers of the document `agentkit
 * serve` writes (`{"mcpServers": {"<name>": {...}}}`), only NAME's with
 * `--server`; `undefined` without `--mcp-config`. The file's headers (the
 * bearer token) go to the server only, never into a message.
 *
 * @throws UsageError for `--server` without `--mcp-config`, `--mcp-config` with another target or its flags, a file
 * that cannot be read or is not such a document, or a NAME it does not hold.
 */
export function configTargets(command: string, line: CommandLine): NamedTarget[] | undefined {
  const file = stringOption(line, "mcp-config");
  const only = stringOption(line, "server");
  if (file === undefined) {
    if (only !== undefined)
      throw new UsageError(`agentkit ${command}: --server picks a server of --mcp-config <file>; give --mcp-config too`);
    return undefined;
  }
  if (stringOption(line, "url") !== undefined || line.rest !== null)
    throw new UsageError(`agentkit ${command}: give one of --mcp-config, --url or a command after '--'`);
  for (const flagName of ["header", "header-env", "env"] as const) {
    if (listOption(line, flagName).length)
      throw new UsageError(
        `agentkit ${command}: --${flagName} is not for --mcp-config: the file gives the server's headers and environment`,
      );
  }
  if (stringOption(line, "cwd") !== undefined) throw new UsageError(`agentkit ${command}: --cwd is not for --mcp-config`);
  const common = commonOf(command, line);
  const servers = Object.entries(readMcpConfig(command, file)).map(([name, entry]) => ({
    name,
    target: entryTarget(command, file, name, entry, common),
  }));
  if (only === undefined) return servers;
  const picked = servers.filter((s) => s.name === only);
  if (!picked.length)
    throw new UsageError(`agentkit ${command}: '${file}' has no server '${only}'. Its servers: ${pyList(servers.map((s) => s.name))}`);
  return picked;
}

/** The `mcpServers` object of the document at `file`. */
function readMcpConfig(command: string, file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(
      `agentkit ${command}: cannot read --mcp-config '${file}' ` +
        `(${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give the file agentkit serve wrote ` +
        `(--write-mcp-json)`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // Not quoted: the file may hold a token.
    throw new UsageError(`agentkit ${command}: --mcp-config '${file}' is not JSON`);
  }
  const servers = (doc as { mcpServers?: unknown } | null)?.mcpServers;
  if (!servers || typeof servers !== "object" || Array.isArray(servers) || !Object.keys(servers).length) {
    throw new UsageError(
      `agentkit ${command}: --mcp-config '${file}' has no "mcpServers" object (the document agentkit serve writes: ` +
        `{"mcpServers": {"<name>": {...}}})`,
    );
  }
  return servers as Record<string, unknown>;
}

/** The target of entry `name` of the document: `{ type: "http", url, headers? }` or `{ type: "stdio", command, args?, env? }`. */
function entryTarget(command: string, file: string, name: string, entry: unknown, common: TargetCommon): Target {
  const e = (entry ?? {}) as { type?: unknown; url?: unknown; headers?: unknown; command?: unknown; args?: unknown; env?: unknown };
  const strings = (v: unknown): v is Record<string, string> =>
    !!v && typeof v === "object" && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");
  if (
    (e.type === "http" || e.type === undefined) &&
    typeof e.url === "string" &&
    /^https?:\/\//i.test(e.url) &&
    (e.headers === undefined || strings(e.headers))
  ) {
    return { kind: "http", url: e.url, headers: { ...(e.headers ?? {}) }, ...common };
  }
  if (
    (e.type === "stdio" || e.type === undefined) &&
    typeof e.command === "string" &&
    e.command &&
    (e.args === undefined || (Array.isArray(e.args) && e.args.every((a) => typeof a === "string"))) &&
    (e.env === undefined || strings(e.env))
  ) {
    return { kind: "stdio", command: e.command, args: (e.args as string[] | undefined) ?? [], env: { ...(e.env ?? {}) }, ...common };
  }
  throw new UsageError(
    `agentkit ${command}: server '${name}' of --mcp-config '${file}' is neither {"type": "http", "url": ` +
      `"http(s)://...", "headers"?} nor {"type": "stdio", "command": "...", "args"?, "env"?}`,
  );
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
  const protocol = target.protocol !== undefined ? { protocol: target.protocol } : {};
  return target.kind === "stdio"
    ? new StdioServer({
        command: target.command,
        args: target.args,
        env: target.env,
        ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
        ...protocol,
      })
    : new StreamableHttpServer({ url: target.url, headers: target.headers, timeoutMs: target.timeoutMs, ...protocol });
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
    MCPClient.start(server, { signal: AbortSignal.timeout(target.timeoutMs), requestTimeoutMs: target.timeoutMs }),
  );
}
