/**
 * @module bin/failure-line
 * Every failure of an `agentkit` command as ONE line a person can act on, and
 * its exit code. Known shapes (a 401, a timeout, a server that died on start,
 * a refused connection, a missing peer) get their own sentence; anything else
 * is `Name: message`. Stacks only with `--verbose`.
 */
import { AgentkitError } from "../errors/agentkit.error.js";
import { errorLine, seconds } from "../util/format.js";
import { CliError, EXIT_RUNTIME } from "./cli.error.js";

/** The `code` of an agentkit error, or undefined: failures are recognised by code, never by name or message. */
function agentkitCode(err: unknown): string | undefined {
  return err instanceof AgentkitError ? err.code : undefined;
}

/** JSON-RPC `RequestTimeout` (SDK 1.x's `ErrorCode.RequestTimeout`). */
const RPC_REQUEST_TIMEOUT = -32001;
/** SDK 2.x's `SdkErrorCode.RequestTimeout`. */
const SDK_REQUEST_TIMEOUT = "REQUEST_TIMEOUT";
const TIMEOUT_CODES: readonly unknown[] = [RPC_REQUEST_TIMEOUT, SDK_REQUEST_TIMEOUT, "ETIMEDOUT"];

/** What `explainFailure` needs to know about the command that failed. */
export interface FailureContext {
  /** `serve`, `inspect` or `call`. */
  command: string;
  /** The request deadline in force, for the timeout sentence (a command sets it once parsed). */
  timeoutMs?: number;
  /** The flag that sets that deadline, named in the timeout sentence. Default `--timeout-ms`. */
  timeoutFlag?: string;
}

/** A failure, rendered. */
export interface Failure {
  /** One line, no trailing newline, no credential. */
  readonly line: string;
  readonly exitCode: number;
}

const MAX_LINE = 800;

function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err, i = 0; e !== undefined && e !== null && i < 8; i++) {
    out.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

function httpStatus(errs: unknown[]): number | undefined {
  for (const e of errs) {
    // SDK 2.x errors carry the HTTP status as `status` or `data.status`; SDK
    // 1.x's StreamableHTTPError as its numeric `code` (JSON-RPC codes are
    // negative, so the two never meet).
    if (!(e instanceof Error)) continue;
    const { code, status, data } = e as { code?: unknown; status?: unknown; data?: { status?: unknown } };
    for (const n of [status, data?.status, code]) if (typeof n === "number" && n >= 400 && n < 600) return n;
  }
  return undefined;
}

function isTimeout(errs: unknown[]): boolean {
  return errs.some(
    (e) =>
      (e instanceof DOMException && e.code === DOMException.TIMEOUT_ERR) ||
      (e instanceof Error && TIMEOUT_CODES.includes((e as { code?: unknown }).code)),
  );
}

function sysCode(errs: unknown[]): string | undefined {
  for (const e of errs) {
    const code = (e as { code?: unknown })?.code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

/** The last few non-empty lines of a stderr tail, on one line. */
export function tailLine(tail: string, lines = 3): string {
  const kept = tail
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-lines);
  return kept.join(" ⏎ ");
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\r?\n\s*/g, " ⏎ ").trim();
  return flat.length > MAX_LINE ? `${flat.slice(0, MAX_LINE - 1)}…` : flat;
}

/** The first line of an error message (what our own errors put before a quoted stderr tail). */
function firstLine(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.split("\n")[0]!;
}

/** The sentence of a timeout: a call the server went quiet on, or a server that never answered. */
function timeoutLine(who: string, server: string, request: string | undefined, context: FailureContext): string {
  const flag = context.timeoutFlag ?? "--timeout-ms";
  const within = context.timeoutMs !== undefined ? ` within ${seconds(context.timeoutMs)}` : "";
  // A connected server that went quiet mid-call: not a question of whether it speaks MCP.
  if (request?.startsWith("tools/call")) {
    const silent = context.timeoutMs !== undefined ? ` for ${seconds(context.timeoutMs)}` : "";
    return (
      `${who}: ${request} on ${server} sent nothing (no result, no progress)${silent}; the tool may still be running ` +
      `there. Raise ${flag} to wait longer`
    );
  }
  const what = request ? `${request} on ${server}` : server;
  return (
    `${who}: ${what} did not answer${within}. Check that it is an MCP server (a stdio server must speak JSON-RPC on ` +
    `stdout), or raise ${flag}`
  );
}

/**
 * Render `err` as one line plus an exit code: a `CliError` keeps its own
 * message and code; the rest are runtime failures (1).
 */
export function explainFailure(err: unknown, context: FailureContext): Failure {
  const who = `agentkit ${context.command}`;
  if (err instanceof CliError) return { line: oneLine(err.message), exitCode: err.exitCode };
  const errs = chain(err);
  const named = err as { name?: string; server?: string; stderrTail?: string; exit?: string; code?: string; request?: string };
  const server = typeof named.server === "string" ? named.server : "the server";
  const status = httpStatus(errs);
  if (status === 401) {
    return {
      line:
        `${who}: ${server} answered 401 Unauthorized — the token is wrong or missing. Pass it with --header-env ` +
        `Authorization=VAR (VAR holding 'Bearer <token>'; agentkit serve --write-mcp-json PATH writes it there, mode ` +
        `0600) or --header 'Authorization: Bearer <token>'`,
      exitCode: EXIT_RUNTIME,
    };
  }
  if (status === 403) {
    return {
      line: `${who}: ${server} answered 403 Forbidden — it refused this client (a loopback server also refuses a foreign Host or Origin)`,
      exitCode: EXIT_RUNTIME,
    };
  }
  if (status === 404) {
    return { line: `${who}: ${server} answered 404 Not Found — check the URL's path (agentkit serves on /mcp)`, exitCode: EXIT_RUNTIME };
  }
  if (isTimeout(errs)) return { line: timeoutLine(who, server, named.request, context), exitCode: EXIT_RUNTIME };
  const sys = sysCode(errs);
  const code = agentkitCode(err);
  if (code === "mcp_connect") {
    const tail = named.stderrTail ? tailLine(named.stderrTail) : "";
    if (sys === "ENOENT")
      return {
        line: `${who}: cannot start ${server}: command not found (ENOENT); check the command after '--' and your PATH`,
        exitCode: EXIT_RUNTIME,
      };
    if (sys === "EACCES")
      return { line: `${who}: cannot start ${server}: permission denied (EACCES); is the command executable?`, exitCode: EXIT_RUNTIME };
    if (sys === "ECONNREFUSED")
      return {
        line:
          `${who}: nothing is listening at ${server.replace(/^streamable HTTP server /, "")} (connection refused); ` +
          `is the server running, and is the port right?`,
        exitCode: EXIT_RUNTIME,
      };
    const cause = (err as Error).cause;
    let why = cause instanceof Error ? cause.message : String(cause);
    // undici says only "fetch failed"; the reason is a cause further down.
    const deepest = errs[errs.length - 1];
    if (deepest !== cause && deepest instanceof Error && !why.includes(deepest.message)) why += ` (${deepest.message})`;
    // What the client learnt besides (what a stdio server printed on stdout, a version hint).
    const detail = (err as { detail?: unknown }).detail;
    if (typeof detail === "string" && detail && !why.includes(detail)) why += ` (${detail})`;
    if (named.exit || tail) {
      return {
        line: oneLine(
          `${who}: ${server} failed to start${named.exit ? ` (${named.exit})` : ""}: ` +
            `${why}${tail ? `; its stderr ended with: ${tail}` : "; it wrote nothing to stderr"}`,
        ),
        exitCode: EXIT_RUNTIME,
      };
    }
    return { line: oneLine(`${who}: could not connect to ${server}: ${why}`), exitCode: EXIT_RUNTIME };
  }
  if (code === "mcp_request" || code === "mcp_session_lost" || code === "bootstrap") {
    return { line: oneLine(`${who}: ${firstLine(err)}`), exitCode: EXIT_RUNTIME };
  }
  if (code === "missing_peer" || code === "oauth_login_required" || code === "oauth_callback") {
    return { line: oneLine(`${who}: ${(err as Error).message}`), exitCode: EXIT_RUNTIME };
  }
  return { line: oneLine(`${who}: ${errorLine(err)} (run again with --verbose for the stack)`), exitCode: EXIT_RUNTIME };
}

/** The stack of `err` and of each cause, for `--verbose`. */
export function verboseDetail(err: unknown): string {
  const parts: string[] = [];
  chain(err).forEach((e, i) => {
    const text = e instanceof Error ? (e.stack ?? errorLine(e)) : String(e);
    parts.push(i === 0 ? text : `caused by: ${text}`);
    const tail = (e as { stderrTail?: unknown }).stderrTail;
    if (i === 0 && typeof tail === "string" && tail) parts.push(`server stderr (tail):\n${tail}`);
  });
  return parts.join("\n");
}
