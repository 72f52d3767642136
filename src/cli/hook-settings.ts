/**
 * @module cli/hook-settings
 * `HookServer` + `hookSettings(...)`: a Claude settings document whose
 * `PreToolUse` hook calls back into this process over a loopback listener, so
 * agentkit's gate and audit see the CLI's built-in tool uses (Bash, Write,
 * Read, ...) too, not only the MCP tools it serves. Codex has no counterpart:
 * `codex exec` runs no hooks.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Asker, Decision } from "../agents/elicitation.js";
import type { RunContext } from "../context/run-context.js";
import { AgentkitError } from "../errors/agentkit.error.js";
import { emitGateCheck, gateVerdict, type GateSource } from "../gate/index.js";
import { shellQuote } from "../wire/shell-quote.js";
import { checkBearer, checkHost, checkOrigin, generateToken, tokenDigest } from "../listener/loopback-checks.js";

/** One `PreToolUse` the CLI reported. */
export interface PreToolUseRequest {
  readonly toolName: string;
  readonly toolInput: Record<string, unknown>;
  readonly toolUseId: string;
  readonly sessionId: string | null;
  readonly cwd: string | null;
  readonly permissionMode: string | null;
  /** The hook document as the CLI sent it. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/**
 * What the hook answers. `allow` runs the tool without the CLI's own
 * permission check (with `updatedInput` when given); `deny` stops it and the
 * model reads `reason`; `ask` hands it to the CLI's permission flow; `defer`
 * says nothing, so the CLI's own rules decide as if there were no hook.
 */
export interface HookVerdict {
  readonly decision: "allow" | "deny" | "ask" | "defer";
  readonly reason?: string;
  readonly updatedInput?: Record<string, unknown>;
}

/** One hook call, as `HookServer.seen` records it (the audit trail). */
export interface HookRecord {
  readonly toolName: string;
  readonly toolUseId: string;
  readonly toolInput: Readonly<Record<string, unknown>>;
  readonly decision: HookVerdict["decision"];
  readonly reason: string | null;
  /**
   * How the approval engine settled it (the closed `GateSource` set; a `decide`
   * policy counts as the Asker, actor `"policy"`), or `null` when nothing here
   * gated the call (audit only: no `asker`, no `decide`).
   */
  readonly source: GateSource | null;
  /** True whenever the Asker (or the `decide` policy) was invoked. */
  readonly asked: boolean;
}

/** Options of `HookServer`. */
export interface HookServerOptions {
  /** Where `hook.pre_tool_use` and `gate.check` events go; its cancellation denies every later call. */
  readonly ctx?: RunContext;
  /** When set (and `decide` is not), every hooked tool use is put to it; approve -> allow, modify -> allow with the edited input, anything else -> deny. */
  readonly asker?: Asker;
  /** A policy of your own; wins over `asker`. A policy that throws denies. */
  readonly decide?: (request: PreToolUseRequest) => HookVerdict | Promise<HookVerdict>;
  /** Deadline for `decide`/`asker`, enforced here; expiry denies. Default: wait forever. */
  readonly timeoutMs?: number;
  /** Which tools fire the hook (the CLI's matcher: a tool name, `A|B`, or `*`). Default `"*"`: every tool, MCP tools included. */
  readonly matcher?: string;
}

/** The settings document `hookSettings` returns (pass it as `ClaudeCliCognition({ settings })`). */
export interface ClaudeHookSettings {
  readonly hooks: {
    readonly PreToolUse: readonly {
      readonly matcher: string;
      readonly hooks: readonly { readonly type: "command"; readonly command: string; readonly timeout: number }[];
    }[];
  };
}

/** Thrown for bad `HookServer` options. */
export class HookServerError extends AgentkitError {
  constructor(message: string) {
    super("hook_server", message);
  }
}

const BODY_LIMIT = 1024 * 1024;
const CLIENT_MARGIN_MS = 5_000;
const FOREVER_S = 24 * 60 * 60;

/**
 * The hook command's program, run as `node -e` by the CLI's shell. It reads
 * the hook JSON on stdin, POSTs it to the listener with the token from the
 * variable named by its second argument, and prints the listener's answer.
 * It fails closed: an unreachable listener, a refusal, a missing token or no
 * answer within its limit all print a deny. Plain JS without single quotes,
 * so it survives shell quoting.
 */
const CLIENT = [
  'const http = require("node:http");',
  "const [url, tokenVar, limit] = process.argv.slice(1);",
  "const deny = (why) => {",
  '  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "agentkit hook: " + why } }));',
  "  process.exit(0);",
  "};",
  'let input = "";',
  'process.stdin.setEncoding("utf8");',
  'process.stdin.on("data", (d) => { input += d; });',
  'process.stdin.on("end", () => {',
  "  const token = process.env[tokenVar];",
  '  if (!token) return deny("the token variable " + tokenVar + " is not set in the environment of the CLI");',
  '  const req = http.request(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer " + token } }, (res) => {',
  '    let body = ""; res.setEncoding("utf8"); res.on("data", (d) => { body += d; });',
  '    res.on("end", () => {',
  '      if (res.statusCode !== 200) return deny("the listener answered HTTP " + res.statusCode + ": " + body.slice(0, 300));',
  '      try { JSON.parse(body); } catch { return deny("the listener answered with something that is not JSON"); }',
  "      process.stdout.write(body); process.exit(0);",
  "    });",
  "  });",
  '  if (Number(limit) > 0) req.setTimeout(Number(limit), () => req.destroy(new Error("no answer within " + limit + " ms")));',
  '  req.on("error", (e) => deny("could not reach the listener at " + url + ": " + e.message));',
  "  req.end(input);",
  "});",
].join("\n");

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

function answer(v: HookVerdict): Record<string, unknown> {
  if (v.decision === "defer") return {};
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: v.decision,
      ...(v.reason ? { permissionDecisionReason: v.reason } : {}),
      ...(v.updatedInput ? { updatedInput: v.updatedInput } : {}),
    },
  };
}

/**
 * The loopback listener behind `hookSettings`. Binds 127.0.0.1 on a free
 * port, generates its token (never caller-supplied), checks Host, Origin and
 * the bearer token (constant-time) on every request, and answers each
 * `PreToolUse` with a verdict from `decide`, the `asker`, or (with neither)
 * `defer`: audit only. Every call is recorded on `seen` and emitted as
 * `hook.pre_tool_use` on `ctx`; a call the Asker saw also emits `gate.check`.
 *
 * The token reaches the hook through the CLI's environment (`cliOptions().env`,
 * variable `tokenEnvVar`), never through argv or the settings document.
 */
export class HookServer implements AsyncDisposable {
  /** The audit trail: every hook call, in order. */
  readonly seen: HookRecord[] = [];
  /** The variable the hook command reads its token from. */
  readonly tokenEnvVar: string;
  readonly matcher: string;
  readonly timeoutMs: number | undefined;
  private readonly token = generateToken();
  private readonly digest = tokenDigest(this.token);
  private server?: Server;
  private port = 0;

  constructor(private readonly options: HookServerOptions = {}) {
    if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
      throw new HookServerError(`HookServer: timeoutMs must be a positive number of milliseconds, got ${options.timeoutMs}`);
    }
    if (options.matcher !== undefined && (typeof options.matcher !== "string" || options.matcher === "")) {
      throw new HookServerError('HookServer: matcher must be a non-empty tool-name pattern (a name, "A|B", or "*")');
    }
    this.tokenEnvVar = `AGENTKIT_HOOK_TOKEN_${randomBytes(4).toString("hex").toUpperCase()}`;
    this.matcher = options.matcher ?? "*";
    this.timeoutMs = options.timeoutMs;
  }

  /** Construct and start. */
  static async start(options: HookServerOptions = {}): Promise<HookServer> {
    const s = new HookServer(options);
    await s.start();
    return s;
  }

  /** Bind and listen. Idempotent. */
  async start(): Promise<this> {
    if (this.server) return this;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** The endpoint the hook posts to. Throws before `start()`. */
  get url(): string {
    if (!this.server) throw new HookServerError("HookServer is not started — use await HookServer.start(...) (or await server.start())");
    return `http://127.0.0.1:${this.port}/hooks/pre-tool-use`;
  }

  /** `Authorization` header for a non-CLI client. */
  get authHeaders(): Readonly<Record<string, string>> {
    return Object.freeze({ Authorization: `Bearer ${this.token}` });
  }

  /** The settings document (`hookSettings(this)`). */
  settings(): ClaudeHookSettings {
    return hookSettings(this);
  }

  /** `{ settings, env }` for `new ClaudeCliCognition({ model, ...hooks.cliOptions() })`; `env` carries the token. */
  cliOptions(): { settings: ClaudeHookSettings; env: Record<string, string> } {
    return { settings: this.settings(), env: { [this.tokenEnvVar]: this.token } };
  }

  /** Stop listening and drop open connections. Idempotent. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for (const check of [checkHost(req.headers.host, this.port), checkOrigin(req.headers.origin, this.port)]) {
      if (!check.ok) return json(res, check.status, { error: check.message });
    }
    const auth = checkBearer(req.headers.authorization, this.digest);
    if (!auth.ok) return json(res, auth.status, { error: auth.message }, { "www-authenticate": "Bearer" });
    if (req.method !== "POST" || req.url !== "/hooks/pre-tool-use") return json(res, 404, { error: `no such endpoint: ${req.method} ${req.url}` });
    let text = "";
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > BODY_LIMIT) return json(res, 413, { error: `hook body larger than ${BODY_LIMIT} bytes` });
      text += (chunk as Buffer).toString("utf8");
    }
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return json(res, 400, { error: "hook body is not JSON" });
    }
    if (!raw || typeof raw !== "object" || typeof raw.tool_name !== "string") return json(res, 400, { error: "hook body has no tool_name" });
    const request: PreToolUseRequest = Object.freeze({
      toolName: raw.tool_name,
      toolInput: raw.tool_input && typeof raw.tool_input === "object" ? (raw.tool_input as Record<string, unknown>) : {},
      toolUseId: typeof raw.tool_use_id === "string" ? raw.tool_use_id : "",
      sessionId: typeof raw.session_id === "string" ? raw.session_id : null,
      cwd: typeof raw.cwd === "string" ? raw.cwd : null,
      permissionMode: typeof raw.permission_mode === "string" ? raw.permission_mode : null,
      raw: Object.freeze(raw),
    });
    const { verdict, source, asked } = await this.decide(request);
    const record: HookRecord = Object.freeze({
      toolName: request.toolName,
      toolUseId: request.toolUseId,
      toolInput: request.toolInput,
      decision: verdict.decision,
      reason: verdict.reason ?? null,
      source,
      asked,
    });
    this.seen.push(record);
    this.options.ctx?.emit("hook.pre_tool_use", { tool: request.toolName, id: request.toolUseId, decision: verdict.decision, source, reason: verdict.reason ?? null });
    json(res, 200, answer(verdict));
  }

  /**
   * Settle one hooked tool use with the approval engine. A `decide` policy is
   * put to the engine as the Asker (allow -> approve, or modify with
   * `updatedInput`; deny -> reject with its reason; ask/defer -> not allowed
   * here, handed back to the CLI's own permission flow), so it gets the same
   * deadline, checks and record as a person would. Emits `gate.check` for every
   * verdict. Never throws: a failing policy or Asker is a deny with the reason.
   */
  private async decide(request: PreToolUseRequest): Promise<{ verdict: HookVerdict; source: HookRecord["source"]; asked: boolean }> {
    const { ctx, asker, decide } = this.options;
    if (!decide && !asker && !ctx?.cancelled) return { verdict: { decision: "defer" }, source: null, asked: false };
    const policy: Asker | undefined = decide ? { ask: async () => policyDecision(await decide(request)) as Decision } : asker;
    const v = await gateVerdict({
      tool: request.toolName,
      arguments: request.toolInput,
      id: request.toolUseId,
      via: "claude_hook",
      asker: policy,
      timeoutMs: this.timeoutMs,
      signal: ctx?.signal,
      abandoned: "the run was cancelled",
      question: `Allow ${request.toolName}?`,
      answerer: decide ? "the hook policy" : "the Asker",
    });
    emitGateCheck(ctx, v.record);
    const passOn = v.source === "asker" && (v.kind === "ask" || v.kind === "defer") && decide !== undefined;
    const verdict: HookVerdict = v.allowed
      ? { decision: "allow", ...(v.modified ? { updatedInput: v.arguments } : {}) }
      : passOn
        ? { decision: v.kind as "ask" | "defer", ...(v.kind === "ask" ? { reason: v.reason } : {}) }
        : { decision: "deny", reason: v.reason };
    return { verdict, source: v.source, asked: v.asked };
  }
}

const PASSED_ON = "handed to the Claude CLI's own permission rules";

/** A `decide` policy's answer as the Decision an Asker would give (actor `"policy"`); a non-object is passed through for the engine to refuse. */
function policyDecision(v: unknown): unknown {
  if (!v || typeof v !== "object") return v;
  const { decision, reason, updatedInput } = v as HookVerdict;
  const note = typeof reason === "string" && reason !== "" ? reason : undefined;
  const base = { actor: "policy", ...(note ? { note } : {}) };
  if (decision === "allow") return updatedInput === undefined ? { kind: "approve", ...base } : { kind: "modify", value: updatedInput, ...base };
  if (decision === "deny") return { kind: "reject", ...base };
  if (decision === "ask" || decision === "defer") return { kind: decision, ...base, note: note ?? `${PASSED_ON} (${decision})` };
  return { kind: decision, ...base };
}

/**
 * The Claude settings document (for `--settings`) whose `PreToolUse` hook
 * posts every matching tool use to `server` and obeys its verdict. The hook
 * command is `process.execPath -e <client> <url> <token variable> <limit>`:
 * runnable by the CLI whatever its PATH, and failing closed (deny) when the
 * listener cannot be reached. The CLI must be given the token variable
 * (`server.cliOptions().env`). The hook's own timeout is set past the
 * server's deadline (a day when there is none), because a hook the CLI times
 * out is one it ignores: that would fail open.
 *
 * Note: `--bare` skips hooks, and `disableAllHooks` in a loaded settings
 * source turns them off; run with `settingSources: ""` for a hermetic run.
 */
export function hookSettings(server: Pick<HookServer, "url" | "tokenEnvVar" | "matcher" | "timeoutMs">): ClaudeHookSettings {
  const limitMs = server.timeoutMs !== undefined ? server.timeoutMs + CLIENT_MARGIN_MS : 0;
  const timeout = limitMs ? Math.ceil(limitMs / 1000) + 5 : FOREVER_S;
  const command = [process.execPath, "-e", CLIENT, server.url, server.tokenEnvVar, String(limitMs)].map(shellQuote).join(" ");
  return { hooks: { PreToolUse: [{ matcher: server.matcher, hooks: [{ type: "command", command, timeout }] }] } };
}
