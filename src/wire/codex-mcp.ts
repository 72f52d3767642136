/**
 * @module wire/codex-mcp
 * `asCodexMcp(spec)`: a served registry projected onto Codex's config keys.
 */
import type { TomlValue } from "./toml.js";
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * What `asCodexMcp` reads from a served registry. Structural: an
 * `McpServerSpec` from `arc-agentkit/mcp` fits, and so does a hand-built object.
 */
export interface CodexMcpSource {
  /** The server name (`engine`); tools are addressed `mcp__<name>__<tool>`. */
  readonly name: string;
  readonly transport: "http" | "stdio";
  /** The endpoint for `http`; `null` for `stdio`. */
  readonly url: string | null;
  /** Headers every request must carry (`{ Authorization: "Bearer …" }`), or `{}` with `auth: "none"`. */
  readonly authHeaders: Readonly<Record<string, string>>;
  /** Qualified names (`mcp__<server>__<tool>`) of the tools that need no human. */
  readonly autoApprove: readonly string[];
  /** Original tool name -> qualified name. */
  readonly mcpNames: Readonly<Record<string, string>>;
  /** Qualified names of the tools that declared `requiresApproval`. */
  readonly requiresApproval?: readonly string[];
  /**
   * True when the server itself asks a person before a `requiresApproval`
   * tool runs (`serveRegistry({ guard: approvalGuard(...) })`). Only then are
   * those tools approved on the Codex side too, so the call reaches the guard.
   */
  readonly guarded?: boolean;
  /**
   * How long Codex may wait for one `tools/call`, in seconds
   * (`mcp_servers.<name>.tool_timeout_sec`); `null` or absent leaves Codex's
   * own default (300 s in 0.171), which ends a call that waits on a person.
   * `McpServerSpec` sets it from its deadline (see `codexToolTimeoutSec`).
   */
  readonly toolTimeoutSec?: number | null;
  /** For `stdio`: the command Codex spawns. */
  readonly stdio?: { readonly command: string; readonly args: readonly string[]; readonly env?: Readonly<Record<string, string>> };
}

/** What `asCodexMcp` returns; spread it into `new CodexCliCognition({ model, ...asCodexMcp(spec) })`. */
export interface CodexMcpOptions {
  /** Dotted Codex config keys -> values; each becomes one `-c key=<toml>` argument. Never holds a credential. */
  readonly config: Record<string, TomlValue>;
  /** Variables the Codex child needs (the bearer token, under the name `config` points at). */
  readonly env: Record<string, string>;
}

const NAME = /^[A-Za-z0-9_-]+$/;

/** What Codex is told to wait for a call that has no deadline of its own: 365 days, i.e. as long as a person takes. */
export const CODEX_FOREVER_SEC = 31_536_000;
/** Codex waits this much longer than the server's own deadline, so the server's clearer "did not return within" answer arrives first. */
const CODEX_DEADLINE_MARGIN_SEC = 30;

/**
 * The `tool_timeout_sec` that lets a served call run as long as the server
 * allows: Codex (0.171) ends a `tools/call` after `tool_timeout_sec` (default
 * 300 s) whatever the server sends meanwhile — progress notifications do not
 * extend it — so it must be told up front. `timeoutMs` set: that deadline
 * plus 30 s; unset: `CODEX_FOREVER_SEC`. `heartbeatMs` 0 (keeping a client
 * waiting turned off): `null`, Codex's default stays.
 */
export function codexToolTimeoutSec(timeoutMs: number | undefined, heartbeatMs: number): number | null {
  if (heartbeatMs === 0) return null;
  return timeoutMs === undefined ? CODEX_FOREVER_SEC : Math.ceil(timeoutMs / 1000) + CODEX_DEADLINE_MARGIN_SEC;
}

/** The environment variable that carries the bearer token of server `name` to Codex: `AGENTKIT_MCP_TOKEN_<NAME>`. */
export function codexTokenEnvVar(name: string): string {
  return `AGENTKIT_MCP_TOKEN_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/** The environment variable that carries the non-Authorization header `header` of server `name`. */
function headerEnvVar(name: string, header: string): string {
  return `AGENTKIT_MCP_HEADER_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_${header.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/**
 * Project a served registry onto Codex's `config.toml` keys
 * (`mcp_servers.<name>.<key>`), for `CodexCliCognition`'s `config` and `env`.
 *
 * - `http`: `url`; the bearer token goes into `env` under
 *   `codexTokenEnvVar(name)` and `bearer_token_env_var` names that variable, so
 *   the credential never appears in `config` or argv (`ps` shows argv). Other
 *   headers travel the same way through `env_http_headers`.
 * - `stdio`: `command`, `args`, and `env` (an inline table; these values do go
 *   into argv, so put no secret there).
 * - Always `required = true`: without it Codex does not wait for a slow server
 *   and exits 0 with the tools silently missing (or with a wrong token).
 * - `tool_timeout_sec` when the source gives `toolTimeoutSec`, so a call that
 *   waits on a person is not cut at Codex's 300 s default.
 * - `tools.<tool>.approval_mode = "approve"` for each `autoApprove` tool, and
 *   for each `requiresApproval` tool only when `guarded` is true. `codex exec`
 *   has no approval callback: any other MCP call fails with "MCP tool call
 *   requires approval, but approval policy is never" before it reaches the
 *   server. So without a server-side guard a tool that requires approval
 *   cannot run under Codex (it fails closed); with one, Codex lets the call
 *   through and the guard's Asker decides.
 *
 * Throws an `AgentkitError` (code `codex_mcp`) for a server or tool name Codex cannot address with
 * `-c` (outside `[A-Za-z0-9_-]`), a qualified name of another server, an
 * `http` spec without a URL or a `stdio` spec without a command.
 */
export function asCodexMcp(spec: CodexMcpSource): CodexMcpOptions {
  const name = spec.name;
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new AgentkitError(
      "codex_mcp",
      `asCodexMcp: server name ${JSON.stringify(name)} cannot be a Codex config key; use only [A-Za-z0-9_-]`,
    );
  }
  const key = `mcp_servers.${name}`;
  const config: Record<string, TomlValue> = {};
  const env: Record<string, string> = {};
  if (spec.transport === "stdio") {
    if (!spec.stdio || !spec.stdio.command) {
      throw new AgentkitError(
        "codex_mcp",
        `asCodexMcp: stdio server '${name}' has no command; Codex spawns stdio servers itself and needs one`,
      );
    }
    config[`${key}.command`] = spec.stdio.command;
    config[`${key}.args`] = [...spec.stdio.args];
    if (spec.stdio.env && Object.keys(spec.stdio.env).length) config[`${key}.env`] = { ...spec.stdio.env };
  } else if (spec.transport === "http") {
    if (!spec.url)
      throw new AgentkitError("codex_mcp", `asCodexMcp: http server '${name}' has no url; start() it (or await serveRegistry) first`);
    config[`${key}.url`] = spec.url;
    const extra: Record<string, string> = {};
    for (const [header, value] of Object.entries(spec.authHeaders ?? {})) {
      const bearer = /^Bearer\s+(.+)$/i.exec(value);
      if (header.toLowerCase() === "authorization" && bearer) {
        const v = codexTokenEnvVar(name);
        env[v] = bearer[1]!;
        config[`${key}.bearer_token_env_var`] = v;
      } else {
        const v = headerEnvVar(name, header);
        env[v] = value;
        extra[header] = v;
      }
    }
    if (Object.keys(extra).length) config[`${key}.env_http_headers`] = extra;
  } else {
    throw new AgentkitError(
      "codex_mcp",
      `asCodexMcp: server '${name}' has transport ${JSON.stringify(spec.transport)}; expected "http" or "stdio"`,
    );
  }
  config[`${key}.required`] = true;
  if (typeof spec.toolTimeoutSec === "number") config[`${key}.tool_timeout_sec`] = spec.toolTimeoutSec;
  const prefix = `mcp__${name}__`;
  const approved = [...(spec.autoApprove ?? []), ...(spec.guarded ? (spec.requiresApproval ?? []) : [])];
  for (const qualified of approved) {
    if (!qualified.startsWith(prefix) || !NAME.test(qualified.slice(prefix.length))) {
      throw new AgentkitError(
        "codex_mcp",
        `asCodexMcp: auto-approve entry '${qualified}' is not a tool of server '${name}' (expected ${prefix}<tool>, tool in [A-Za-z0-9_-])`,
      );
    }
    config[`${key}.tools.${qualified.slice(prefix.length)}.approval_mode`] = "approve";
  }
  return { config, env };
}
