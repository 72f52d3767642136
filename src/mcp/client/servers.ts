/**
 * @module mcp/client/servers
 * The two server configs an `MCPClient` opens: `StdioServer` (a subprocess) and
 * `StreamableHttpServer` (an HTTP endpoint). Both are frozen, with their one
 * mutable-looking field (`env` / `headers`) deep-frozen, and neither field takes
 * part in identity.
 */
import { checkOptions, isTimeoutMs, opt, type OptionRule } from "../../options/option-checks.js";
import { OptionsError } from "../../errors/options.error.js";
import { deepFreeze } from "../../util/format.js";
import type { OAuthClientProvider, Transport } from "@modelcontextprotocol/client";
import { AgentkitOAuthProvider, oauthProvider } from "../oauth/oauth-provider.js";

/** Where a stdio server's stderr goes: `"pipe"` keeps a tail for error messages; `"inherit"` shares the parent's stderr. */
export type StderrMode = "pipe" | "inherit";

/**
 * Which MCP protocol era a client speaks to a server:
 * - `"auto"` (default): the newest both sides speak. The client first sends
 *   `server/discover` (2026-07-28); a server that answers it is spoken to in
 *   the 2026-07-28 era (no session), and one that refuses it (a 2025 server:
 *   an error, or, on stdio, silence) gets the 2025 `initialize` handshake on
 *   the same connection. For a `StdioServer` the probe runs in the process
 *   this client spawned (no throwaway sibling process, unlike the SDK's own
 *   stdio transport, so its process group and stderr tail hold); a server
 *   that exits on the probe instead of answering it is spawned once more and
 *   opened with `initialize`, and one that leaves it unanswered for the
 *   request timeout (60 s by default) is opened with `initialize` then.
 * - `"2026-07-28"`: that revision only; a server that does not offer it fails to open.
 * - `"2025-11-25"`: the 2025 `initialize` handshake only, no probe (what a
 *   2025 client sends, byte for byte); a server that speaks only 2026-07-28
 *   fails to open, with an error naming both versions.
 */
export type ProtocolChoice = "auto" | "2026-07-28" | "2025-11-25";

/** The accepted values of `protocol`. */
export const PROTOCOL_CHOICES: readonly ProtocolChoice[] = Object.freeze(["auto", "2026-07-28", "2025-11-25"]);

/** Options of a `StdioServer`. */
export interface StdioServerOptions {
  /** The executable (`npx`, `uvx`, `process.execPath`, a binary). Not run through a shell. */
  readonly command: string;
  /** Its arguments. Default `[]`. */
  readonly args?: readonly string[];
  /**
   * Variables overlaid on `process.env` in the child. (The SDK's own stdio
   * transport passes only HOME, LOGNAME, PATH, SHELL, TERM and USER; this
   * package passes the whole parent environment, with these overlaid.)
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the child. Default: the parent's. */
  readonly cwd?: string;
  /**
   * `"pipe"` (default): the child's stderr is read into a tail buffer (the last
   * ~4 KiB) that a failure to start or an unexpected exit quotes in its error;
   * nothing reaches the parent's stderr. `"inherit"`: the child writes straight
   * to the parent's stderr (no tail is kept).
   */
  readonly stderr?: StderrMode;
  /** The protocol era to speak (see `ProtocolChoice`). Default `"auto"`. */
  readonly protocol?: ProtocolChoice;
}

/** Options of a `StreamableHttpServer`. */
export interface StreamableHttpServerOptions {
  /** The MCP endpoint, `http:` or `https:` (e.g. `https://mcp.example.com/mcp`). */
  readonly url: string | URL;
  /** Sent on every request (e.g. `Authorization`). May carry credentials: never printed, never part of identity. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Default per-request timeout of a client over this server, in ms. Default 30 000. */
  readonly timeoutMs?: number;
  /**
   * OAuth 2.1 for a server behind auth: `"oauth"` (the shipped provider with
   * its defaults, i.e. `oauthProvider()`), a provider from `oauthProvider({...})`
   * (bound to this URL: tokens kept per server URL), or any SDK
   * `OAuthClientProvider` of your own (used as it is). Never part of identity.
   */
  readonly auth?: OAuthClientProvider | "oauth";
  /** The protocol era to speak (see `ProtocolChoice`). Default `"auto"`. */
  readonly protocol?: ProtocolChoice;
}

/** The default `timeoutMs` of a `StreamableHttpServer`. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/** The options of a `StdioServer`, declared once. */
const STDIO_SERVER_OPTIONS = {
  command: opt.nonEmptyString('a non-empty string such as "npx" or process.execPath'),
  args: opt.stringArray(),
  env: opt.stringRecord(),
  cwd: opt.string("a non-empty string", true),
  stderr: opt.oneOf<StderrMode>(["pipe", "inherit"], "pipe"),
  protocol: opt.oneOf(PROTOCOL_CHOICES, "auto"),
} as const;

/** `url`: an absolute `http:` or `https:` URL, normalised (`new URL(url).href`). */
const urlRule: OptionRule<string> = (v, where, option) => {
  let url: URL;
  try {
    url = new URL((v as string | URL | undefined) ?? "");
  } catch {
    throw new OptionsError(where, option, `${where}: '${option}' must be an absolute http(s) URL, got ${JSON.stringify(String(v))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new OptionsError(where, option, `${where}: '${option}' must use http: or https:, got ${JSON.stringify(url.protocol)}`);
  return url.href;
};

/** An SDK `OAuthClientProvider` by shape (what `auth` takes besides `"oauth"`). */
function isOAuthProvider(v: unknown): v is OAuthClientProvider {
  return (
    !!v &&
    typeof v === "object" &&
    typeof (v as OAuthClientProvider).tokens === "function" &&
    typeof (v as OAuthClientProvider).redirectToAuthorization === "function"
  );
}

/** The options of a `StreamableHttpServer`, declared once. */
const HTTP_SERVER_OPTIONS = {
  url: urlRule,
  headers: opt.stringRecord(),
  timeoutMs: ((v, where, option) =>
    opt.that<number>(isTimeoutMs, "a positive number of milliseconds")(v, where, option) ?? DEFAULT_HTTP_TIMEOUT_MS) as OptionRule<number>,
  auth: opt.that<OAuthClientProvider | "oauth">(
    (v) => v === "oauth" || isOAuthProvider(v),
    '"oauth" or an OAuthClientProvider (e.g. oauthProvider({ ... }))',
  ),
  protocol: opt.oneOf(PROTOCOL_CHOICES, "auto"),
} as const;

/**
 * A local MCP server: spawned as a subprocess per `MCPClient`, spoken to over
 * its stdin/stdout. The child runs in its own process group; closing the
 * client ends the whole group (launchers such as `npx`/`uvx` leave no orphans).
 *
 * Frozen; `args` and `env` are frozen copies. Identity (`key`, `equals`) is the
 * process: `command`, `args`, `cwd` — not `env`, not `stderr`.
 *
 * @throws OptionsError naming the option and what is accepted: `command`
 *   missing or empty, a field of the wrong type, an option it does not know.
 */
export class StdioServer {
  /** Discriminant of the server config union. */
  readonly kind = "stdio" as const;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly stderr: StderrMode;
  /** The protocol era to speak: `"auto"` unless given. */
  readonly protocol: ProtocolChoice;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: StdioServerOptions) {
    const o = checkOptions(options, "StdioServer", STDIO_SERVER_OPTIONS);
    this.command = o.command;
    this.args = o.args ?? Object.freeze([]);
    this.env = deepFreeze(o.env ?? {});
    this.cwd = o.cwd;
    this.stderr = o.stderr;
    this.protocol = o.protocol;
    Object.freeze(this);
  }

  /** A stable string identity: command, args and cwd (env excluded). */
  get key(): string {
    return JSON.stringify(["stdio", this.command, this.args, this.cwd ?? null]);
  }

  /** True when `other` is the same process: same command, args and cwd. */
  equals(other: unknown): boolean {
    return other instanceof StdioServer && other.key === this.key;
  }

  /** For messages: `stdio server 'npx -y pkg'` (env never shown). */
  toString(): string {
    return `stdio server '${[this.command, ...this.args].join(" ")}'`;
  }
}

/**
 * A remote MCP server over streamable HTTP (POST, SSE responses). One HTTP
 * transport per `MCPClient`; `headers` go on every request.
 *
 * Frozen; `headers` is a frozen copy. Identity (`key`, `equals`) is the
 * endpoint: `url` and `timeoutMs` — not `headers`.
 *
 * @throws OptionsError naming the option and what is accepted: `url` not an
 *   absolute http(s) URL, `timeoutMs` not a positive number, an `auth` that is
 *   no provider, an option it does not know.
 */
export class StreamableHttpServer {
  /** Discriminant of the server config union. */
  readonly kind = "http" as const;
  /** The endpoint, normalised (`new URL(url).href`). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** The OAuth provider (a shipped one bound to `url`), or undefined for none. */
  readonly auth: OAuthClientProvider | undefined;
  /** The protocol era to speak: `"auto"` unless given. */
  readonly protocol: ProtocolChoice;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: StreamableHttpServerOptions) {
    const o = checkOptions(options, "StreamableHttpServer", HTTP_SERVER_OPTIONS);
    this.url = o.url;
    this.headers = deepFreeze(o.headers ?? {});
    this.timeoutMs = o.timeoutMs;
    this.auth = boundAuth(o.auth, this.url);
    this.protocol = o.protocol;
    Object.freeze(this);
  }

  /** A stable string identity: url and timeoutMs (headers excluded). */
  get key(): string {
    return JSON.stringify(["http", this.url, this.timeoutMs]);
  }

  /** True when `other` is the same endpoint: same url and timeoutMs. */
  equals(other: unknown): boolean {
    return other instanceof StreamableHttpServer && other.key === this.key;
  }

  /** For messages: `streamable HTTP server http://host:port/path` (no credentials, query or headers). */
  toString(): string {
    const u = new URL(this.url);
    return `streamable HTTP server ${u.protocol}//${u.host}${u.pathname}`;
  }
}

/** The checked `auth` bound to `url`: the shipped provider gets a copy of its own for this server; another provider is used as it is. */
function boundAuth(auth: OAuthClientProvider | "oauth" | undefined, url: string): OAuthClientProvider | undefined {
  if (auth === undefined) return undefined;
  if (auth === "oauth") return oauthProvider().forServer(url);
  if (auth instanceof AgentkitOAuthProvider) return auth.serverUrl === url ? auth : auth.forServer(url);
  return auth;
}

/**
 * A server in this process, reached without a port or a process: each
 * connect asks `transport()` for a fresh SDK transport to it; the client's
 * `stop()` ends with the server's `stop()`. Built by
 * `connectModule()` (for tests); its identity is the object itself.
 */
export class InMemoryServer {
  /** Discriminant of the server config union. */
  readonly kind = "memory" as const;
  /** The protocol era to speak: `"auto"`. */
  readonly protocol: ProtocolChoice = "auto";

  constructor(
    /** The served module's name, for messages. */
    readonly name: string,
    /** A transport to the server, one per connect. */
    readonly transport: () => Transport,
    /** Stop the server; the client's `stop()` calls it last. */
    readonly stop: () => Promise<void> = async () => {},
  ) {
    Object.freeze(this);
  }

  /** A string identity, unique to this object. */
  get key(): string {
    return JSON.stringify(["memory", this.name]);
  }

  /** True only for this very object. */
  equals(other: unknown): boolean {
    return other === this;
  }

  /** For messages: `in-memory server 'greeter'`. */
  toString(): string {
    return `in-memory server '${this.name}'`;
  }
}

/** What `MCPClient.start()` accepts. */
export type McpServerConfig = StdioServer | StreamableHttpServer | InMemoryServer;
