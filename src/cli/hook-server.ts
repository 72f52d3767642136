/**
 * @module cli/hook-server
 * `HookServer`: the loopback endpoint the Claude CLI's `PreToolUse` hook
 * posts each tool use to; it settles each with the approval engine and
 * answers with the hook's verdict.
 */
import { checkOptions, opt } from "../options/option-checks.js";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Asker, Decision } from "../contracts/elicitation.js";
import type { RunContext } from "../context/run-context.js";
import { GateRecorder, gateVerdict, type GateRecord, type GateSource, type GateSubject } from "../gate/index.js";
import { errorLine } from "../util/format.js";
import { generateToken, tokenDigest } from "../listener/loopback-checks.js";
import type { RouteMount } from "../listener/loopback-listener.js";
import { readJsonBody } from "../listener/read-body.js";
import { leaseListener, type ListenerLease } from "../listener/shared-listeners.js";
import { getLogger } from "../util/logger.js";
import { AgentkitError } from "../errors/agentkit.error.js";
import { answer, encodeVerdict, reasonText, type HookVerdict } from "./hook-verdict.js";
import { hookVerdictOf, policyDecision } from "./hook-policy.js";
import { hookSettings, type ClaudeHookSettings } from "./hook-settings.js";

/** The options of `new HookServer(...)`, declared once. */
const HOOK_SERVER_OPTIONS = {
  ctx: opt.any<RunContext | undefined>(),
  asker: opt.any<Asker | undefined>(),
  decide: opt.fn<(request: PreToolUseRequest) => HookVerdict | Promise<HookVerdict>>("(request) => verdict or Promise<verdict>"),
  timeoutMs: opt.timeoutMs(),
  matcher: opt.string('a non-empty tool-name pattern (a name, "A|B", or "*")', true),
  auditPath: opt.string("a non-empty file path", true),
} as const;

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
 * One hook call, as `HookServer.seen` records it (the audit trail): a view of
 * the gate's record (`record`) with the hook's own wire facts beside it.
 * `source`, `asked` and `questionId` are read from `record`; all three are
 * `null`/`false` when nothing here gated the call.
 */
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
  /** The question's id the Asker was handed (`AskOptions.questionId`), or `null` when nobody was asked. */
  readonly questionId: string | null;
  /** The gate's record of this call (the same object the recorder wrote and emitted as `gate.check`), or `null` when nothing gated it. */
  readonly record: GateRecord | null;
}

/** Options of `HookServer`. */
export interface HookServerOptions {
  /** Where `hook.pre_tool_use` and `gate.check` events go; its cancellation denies every later call. */
  readonly ctx?: RunContext;
  /**
   * When set (and `decide` is not), every hooked tool use is put to it; approve -> allow, modify -> allow with the
   * edited input, anything else -> deny.
   */
  readonly asker?: Asker;
  /** A policy of your own; wins over `asker`. A policy that throws denies. */
  readonly decide?: (request: PreToolUseRequest) => HookVerdict | Promise<HookVerdict>;
  /** Deadline for `decide`/`asker`, enforced here; expiry denies. Default: wait forever. */
  readonly timeoutMs?: number;
  /** Which tools fire the hook (the CLI's matcher: a tool name, `A|B`, or `*`). Default `"*"`: every tool, MCP tools included. */
  readonly matcher?: string;
  /**
   * A JSONL audit file (created 0600; its directory must exist): one fsync'd
   * line per gated call before the CLI hears the answer. When a line cannot
   * be written, an allow becomes a deny (the gate recorder's one policy).
   */
  readonly auditPath?: string;
}

const BODY_LIMIT = 1024 * 1024;
const HOOK_PATH = "/hooks/pre-tool-use";

/** Write a JSON answer; a response the client already dropped is left alone. Never throws (`text` is encoded already). */
function send(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

function json(res: ServerResponse, status: number, body: { error: string }): void {
  send(res, status, JSON.stringify(body));
}

/**
 * The loopback listener behind `hookSettings`. Binds 127.0.0.1 on a free
 * port, generates its token (never caller-supplied), checks Host, Origin and
 * the bearer token (constant-time) on every request, and answers each
 * `PreToolUse` with a verdict from `decide`, the `asker`, or (with neither)
 * `defer`: audit only. Every call is recorded on `seen` and emitted as
 * `hook.pre_tool_use` on `ctx`; a call the gate settled is recorded through
 * the gate's one recorder (`decisions`, the `auditPath` file, `gate.check`
 * on `ctx`), and its `seen` entry is a view of that record. The Asker is
 * handed `{ signal, questionId }`; the signal aborts when the run is
 * cancelled or the CLI's hook request closes.
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
  private lease?: ListenerLease;
  private route?: RouteMount;
  private readonly recorder: GateRecorder;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(private readonly options: HookServerOptions = {}) {
    const checked = checkOptions(options, "HookServer", HOOK_SERVER_OPTIONS);
    this.tokenEnvVar = `AGENTKIT_HOOK_TOKEN_${randomBytes(4).toString("hex").toUpperCase()}`;
    this.matcher = checked.matcher ?? "*";
    this.timeoutMs = checked.timeoutMs;
    this.recorder = new GateRecorder({ auditPath: options.auditPath, where: "HookServer" });
  }

  /** Every gated call, as the gate recorded it (a live, read-only view; audit-only calls are not here). */
  get decisions(): readonly GateRecord[] {
    return this.recorder.decisions;
  }

  /** Construct and start. */
  static async start(options: HookServerOptions = {}): Promise<HookServer> {
    const s = new HookServer(options);
    await s.start();
    return s;
  }

  /**
   * Mount the hook endpoint on this process's loopback listener (127.0.0.1,
   * shared with the registry and approval servers of this process; each
   * route has its own token). Idempotent.
   */
  async start(): Promise<this> {
    if (this.lease) return this;
    await this.recorder.check();
    const lease = await leaseListener({ host: "127.0.0.1", port: 0 });
    try {
      this.route = lease.listener.mount({
        path: lease.listener.freePath(HOOK_PATH),
        auth: { kind: "bearer", digest: this.digest },
        refusal: "json",
        handler: (req, res) => this.onRequest(req, res),
      });
    } catch (err) {
      await lease.release();
      throw err;
    }
    this.route.setServing(true);
    this.lease = lease;
    return this;
  }

  /** The endpoint the hook posts to. Throws before `start()`. */
  get url(): string {
    if (!this.lease || !this.route)
      throw new AgentkitError("hook_server", "HookServer is not started — use await HookServer.start(...) (or await server.start())");
    return `http://127.0.0.1:${this.lease.listener.port}${this.route.path}`;
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

  /** Unmount the endpoint and release the listener (its port is freed when nothing else uses it). Idempotent. */
  async stop(): Promise<void> {
    const lease = this.lease;
    if (!lease) return;
    this.lease = undefined;
    this.route?.unmount();
    this.route = undefined;
    await lease.release();
  }

  /** Same as `stop()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /**
   * The route's handler: never throws, never rejects; whatever goes wrong is an answer (or a dropped request) and the
   * host keeps serving.
   */
  private onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.handle(req, res).catch((err: unknown) => {
      getLogger().error(`agentkit hook endpoint: ${errorLine(err)}`);
      send(res, 200, JSON.stringify(answer({ decision: "deny", reason: `the hook endpoint failed: ${errorLine(err)}; denied` })));
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST")
      return json(res, 404, { error: `no such endpoint: ${String(req.method).slice(0, 20)} ${String(req.url).slice(0, 200)}` });
    const body = await readJsonBody(req, res, BODY_LIMIT);
    if (!body.ok) {
      if (body.reason === "too_large") return json(res, 413, { error: `hook body larger than ${BODY_LIMIT} bytes` });
      if (body.reason === "not_json") return json(res, 400, { error: "hook body is not JSON" });
      return; // half a body then a reset: nobody to answer, nothing thrown
    }
    const request = preToolUse(body.value);
    if (!request) return json(res, 400, { error: "hook body has no tool_name (a JSON object with a string tool_name is expected)" });
    let decided: Decided;
    const gone = requestGone(req, res, this.options.ctx?.signal);
    try {
      decided = await this.decide(request, gone.signal);
    } catch (err) {
      // decide() means not to throw; a ctx whose emit throws can still make it. Fail closed.
      const reason = `tool '${request.toolName}' was not run: the hook's decision failed: ${errorLine(err)}`;
      decided = {
        verdict: { decision: "deny", reason },
        source: "error",
        asked: this.options.asker !== undefined && this.options.decide === undefined,
        record: null,
      };
    } finally {
      gone.dispose();
    }
    const { text: wire, verdict } = encodeVerdict(decided.verdict, request.toolName);
    const source = verdict === decided.verdict ? decided.source : "error";
    const reason = reasonText(verdict.reason);
    const record: HookRecord = Object.freeze({
      toolName: request.toolName,
      toolUseId: request.toolUseId,
      toolInput: request.toolInput,
      decision: verdict.decision,
      reason,
      source,
      asked: decided.asked,
      questionId: decided.record?.questionId ?? null,
      record: decided.record,
    });
    this.seen.push(record);
    try {
      this.options.ctx?.emit("hook.pre_tool_use", {
        tool: request.toolName,
        id: request.toolUseId,
        decision: verdict.decision,
        source,
        reason,
      });
    } catch (err) {
      getLogger().error(`agentkit hook endpoint: ctx.emit("hook.pre_tool_use") threw: ${errorLine(err)}`);
    }
    send(res, 200, wire);
  }

  /**
   * Settle one hooked tool use with the approval engine. A `decide` policy is
   * put to the engine as the Asker (allow -> approve, or modify with
   * `updatedInput`; deny -> reject with its reason; ask/defer -> not allowed
   * here, handed back to the CLI's own permission flow), so it gets the same
   * deadline, checks and record as a person would. Emits `gate.check` for every
   * verdict. Never throws: a failing policy or Asker is a deny with the reason.
   */
  private async decide(request: PreToolUseRequest, gone: AbortSignal): Promise<Decided> {
    const { ctx, asker, decide } = this.options;
    if (!decide && !asker && !ctx?.cancelled) return { verdict: { decision: "defer" }, source: null, asked: false, record: null };
    const policy: Asker | undefined = decide ? { ask: async () => policyDecision(await decide(request)) as Decision } : asker;
    const subject: GateSubject = { tool: request.toolName, arguments: request.toolInput, id: request.toolUseId, via: "claude_hook" };
    const given = await gateVerdict({
      ...subject,
      asker: policy,
      timeoutMs: this.timeoutMs,
      // Aborts when the run is cancelled or the CLI's hook request closes; its reason says which.
      signal: gone,
      question: `Allow ${request.toolName}?`,
      answerer: decide ? "the hook policy" : "the Asker",
    });
    const v = await this.recorder.record(subject, given, ctx);
    return { verdict: hookVerdictOf(v, decide !== undefined), source: v.source, asked: v.asked, record: v.record };
  }
}

/** The hook document the CLI posted, read; `undefined` when it is not an object with a string `tool_name`. */
function preToolUse(value: unknown): PreToolUseRequest | undefined {
  const raw = value as Record<string, unknown>;
  if (!raw || typeof raw !== "object" || Array.isArray(raw) || typeof raw.tool_name !== "string") return undefined;
  return Object.freeze({
    toolName: raw.tool_name,
    toolInput:
      raw.tool_input && typeof raw.tool_input === "object" && !Array.isArray(raw.tool_input)
        ? (raw.tool_input as Record<string, unknown>)
        : {},
    toolUseId: typeof raw.tool_use_id === "string" ? raw.tool_use_id : "",
    sessionId: typeof raw.session_id === "string" ? raw.session_id : null,
    cwd: typeof raw.cwd === "string" ? raw.cwd : null,
    permissionMode: typeof raw.permission_mode === "string" ? raw.permission_mode : null,
    raw: Object.freeze(raw),
  });
}

/** What `decide()` settled: the wire verdict, and the gate's record when the gate settled it. */
interface Decided {
  readonly verdict: HookVerdict;
  readonly source: HookRecord["source"];
  readonly asked: boolean;
  readonly record: GateRecord | null;
}

/**
 * A signal that aborts when the run is cancelled ("the run was cancelled") or
 * the hook's HTTP request closes before it was answered (the CLI stopped waiting).
 */
function requestGone(
  req: IncomingMessage,
  res: ServerResponse,
  run: AbortSignal | undefined,
): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onClose = (): void => {
    if (!res.writableEnded)
      controller.abort(new Error("the Claude CLI's hook stopped waiting (its request closed) before anyone answered"));
  };
  const onRun = (): void => controller.abort(new Error("the run was cancelled"));
  if (run?.aborted) onRun();
  run?.addEventListener("abort", onRun, { once: true });
  res.on("close", onClose);
  return {
    signal: controller.signal,
    dispose: () => {
      res.off("close", onClose);
      run?.removeEventListener("abort", onRun);
    },
  };
}
