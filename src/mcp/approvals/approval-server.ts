/**
 * @module mcp/approvals/approval-server
 * `ApprovalServer`: the MCP server the Claude CLI calls instead of prompting a
 * terminal (`--permission-prompt-tool`). Each prompt goes to the
 * application's `Asker`; the answer maps back onto the CLI's wire shape.
 * The `approve` tool is served by the package's one `tools/call` path (the
 * served registry's: `servedServerFactory` on the loopback listener), so it
 * has that path's progress heartbeats, cancellation and both protocol eras.
 */
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt, type CheckedOptions, type OptionRule } from "../../options/option-checks.js";
import { ClientGaveUp } from "../../errors/client-gave-up.error.js";
import type { Asker } from "../../contracts/elicitation.js";
import { RunContext, type Autonomy } from "../../context/run-context.js";
import type { Tool, ToolSchema } from "../../tools/tool.js";
import {
  errorVerdict,
  gateVerdict,
  type AutoAllowWhen,
  type GateEventTarget,
  type GateRecord,
  type GateSubject,
  type GateVerdict,
} from "../../gate/index.js";
import { describeValue, errorLine, pyStr } from "../../util/format.js";
import { LoopbackMcpTransport, SESSION_OPTION_RULES } from "../loopback/loopback-transport.js";
import { removeMcpConfig, writeMcpConfig, type WrittenMcpConfig } from "../../wire/mcp-config-file.js";
import { qualifiedName } from "../../wire/names.js";
import { checkHeartbeatMs, DEFAULT_HEARTBEAT_MS, waited } from "../serve/heartbeat.js";
import { buildCatalog } from "../serve/served-catalog.js";
import { servedServerFactory } from "../serve/served-server.js";
import { SESSION_DEFAULTS } from "../loopback/session-table.js";
import { ApprovalAudit } from "./approval-audit.js";
import { notStarted } from "./approval-server.error.js";
import { isJsonObject, SEAM_OPTION_RULES } from "./check-options.js";
import { wireJson } from "./wire-json.js";

/** The MCP server name the CLI sees. */
export const APPROVAL_SERVER_NAME = "agentkit_approvals";
/** The one tool it serves. */
export const APPROVAL_TOOL_NAME = "approve";

/** Options of `new ApprovalServer(...)`. Checked at construction (`OptionsError` naming the option). */
export interface ApprovalServerOptions {
  /** Answers every prompt that `autoAllow` and the tier do not settle. */
  readonly asker: Asker;
  /**
   * The deadline for an answer, enforced by the server, never trusted to the
   * Asker: when it fires the prompt is denied (source `timeout`). Unset waits
   * forever — right for an interactive UI, wrong for a worker.
   */
  readonly timeoutMs?: number;
  /**
   * Tool names approved without asking. Matched on the name ONLY: `["Read"]`
   * means "reading anything is fine", `~/.ssh/id_rsa` included. Checked before the tier.
   */
  readonly autoAllow?: Iterable<string>;
  /** Narrows `autoAllow` by argument; can only subtract; a throw falls through to the Asker. */
  readonly autoAllowWhen?: AutoAllowWhen;
  /**
   * `"gated"` (default): a prompt not settled by `autoAllow` asks the Asker.
   * `"auto"`: it is allowed without asking (source `autonomy`). Never taken
   * from `ctx.autonomy`: a gate must not fail open because a run defaulted to `"auto"`.
   */
  readonly autonomy?: Autonomy;
  /** Where each decision is emitted as `gate.check` (without `arguments`), best-effort. */
  readonly ctx?: GateEventTarget;
  /** A JSONL audit file: one line per decision, fsync'd before the CLI hears the answer. Created 0600; its directory must exist. */
  readonly auditPath?: string;
  /** A session with no request for this long is closed; a request naming it gets 404 and the client re-initializes. Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Most live sessions; past it the oldest idle one closes, and with none idle a new `initialize` gets 503. Default 1,000. */
  readonly maxSessions?: number;
  /**
   * While a prompt waits on the Asker, the CLI gets a progress notification
   * whenever it has heard nothing for this long, so it keeps waiting however
   * long a person takes (the Claude CLI gives up on a silent MCP call after
   * 300 s); only `timeoutMs` ends a prompt. Default 30,000; 0 turns it off.
   */
  readonly heartbeatMs?: number;
  /**
   * The served registries (`McpServerSpec`s, or anything with
   * `argumentError(qualifiedName, args)`) whose tools the CLI asks about: a
   * prompt for one of their tools with arguments its schema refuses is denied
   * with the `ToolArgumentError` text, and no one is asked — a person only
   * approves a call that can run. `bootstrap` passes the module's own.
   */
  readonly servers?: readonly ServedArgumentCheck[];
}

/** What `ApprovalServer({ servers })` asks of a served registry: its refusal of `args` for the tool `qualifiedName`, or `undefined`. */
export interface ServedArgumentCheck {
  /** Why `args` would be refused by the served tool `qualifiedName` (its input validation), or `undefined` when they are valid or the tool is not served here. */
  argumentError(qualifiedName: string, args: Record<string, unknown>): string | undefined;
}

/** The document in the approval server's 0600 config file (`configDocument()`). */
export interface ApprovalConfigDocument {
  mcpServers: Record<string, { type: "http"; url: string; headers: Record<string, string> }>;
}

/**
 * What `cliOptions()` returns; spreads into `ClaudeCliCognition` (beside a spec's: `mergeCliOptions(spec.cliOptions(),
 * approvals.cliOptions())`).
 */
export interface ApprovalCliOptions {
  /**
   * `[configPath]`: the path of the 0600 file holding
   * `{"mcpServers": {"agentkit_approvals": {...}}}`, never the document itself
   * (its bearer token would be in the CLI's world-readable argv).
   */
  mcpConfig: string[];
  strictMcpConfig: true;
  /** `mcp__agentkit_approvals__approve`. */
  permissionPromptTool: string;
  /** `""`: no ambient user/project/local settings, so none can settle a call before the prompt tool sees it. */
  settingSources: "";
}

/** The `approve` tool's schema: the arguments Claude Code's `--permission-prompt-tool` sends. */
const APPROVE_SCHEMA: ToolSchema = Object.freeze({
  name: APPROVAL_TOOL_NAME,
  description:
    "Answer a permission prompt: ask the application's reviewer whether tool_name may run with input. Returns JSON text: " +
    '{"behavior": "allow", "updatedInput": {...}} or {"behavior": "deny", "message": "..."}.',
  parameters: Object.freeze({
    type: "object" as const,
    properties: {
      tool_name: { type: "string", description: "The tool the CLI wants to run." },
      input: { type: "object", description: "The arguments it would run with." },
      tool_use_id: { type: "string", description: "The model's tool-use id." },
    },
    required: ["tool_name", "input"],
  }),
});

/**
 * The `approve` tool as the serve path runs it. It checks its own arguments
 * (no `checkArguments`): a malformed prompt is a denial in the CLI's wire
 * shape, recorded, never a `ToolArgumentError`.
 */
function approveTool(answer: (args: Record<string, unknown>, ctx: RunContext) => Promise<string>): Tool {
  return Object.freeze({
    name: APPROVAL_TOOL_NAME,
    description: APPROVE_SCHEMA.description,
    schema: APPROVE_SCHEMA,
    sideEffecting: false,
    requiresApproval: false,
    caps: Object.freeze([]),
    task: "never" as const,
    run: answer,
  });
}

/** The words of a heartbeat while a prompt waits: `waiting for a person to approve 'Bash' (30s)`. */
function waitingWords(args: Record<string, unknown>, ms: number): string {
  const tool = typeof args.tool_name === "string" ? args.tool_name : "a tool";
  return `waiting for a person to approve ${pyStr(tool)} (${waited(ms)})`;
}

interface Running {
  readonly transport: LoopbackMcpTransport;
  readonly written: WrittenMcpConfig;
  readonly document: ApprovalConfigDocument;
  /** Aborted by stop(): pending asks are abandoned as denials. */
  readonly controller: AbortController;
}

function answerText(verdict: GateVerdict): string {
  return verdict.allowed
    ? wireJson({ behavior: "allow", updatedInput: verdict.arguments })
    : wireJson({ behavior: "deny", message: verdict.reason });
}

/**
 * One signal that aborts when the server stops (with the server's reason) or
 * when the client stops waiting — cancels the request or goes away: the serve
 * path cancels the call's context with a `ClientGaveUp` naming the client, so
 * the record reads as a timeout; `dispose()` detaches it from the server's
 * long-lived signal.
 */
function abandonment(stopped: AbortSignal, cancelled: AbortSignal): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onStop = (): void => controller.abort(stopped.reason);
  const onCancel = (): void => {
    const reason: unknown = cancelled.reason;
    controller.abort(reason instanceof ClientGaveUp ? reason : new ClientGaveUp("the MCP client", `it went away: ${errorLine(reason)}`));
  };
  if (stopped.aborted) onStop();
  else if (cancelled.aborted) onCancel();
  stopped.addEventListener("abort", onStop, { once: true });
  cancelled.addEventListener("abort", onCancel, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      stopped.removeEventListener("abort", onStop);
      cancelled.removeEventListener("abort", onCancel);
    },
  };
}

const VIA = "approval_server";

/** Parse the CLI's `approve` arguments; a string saying what is wrong when they are malformed. */
function parsePrompt(args: unknown): GateSubject | { readonly malformed: string; readonly tool: string } {
  const a = isJsonObject(args) ? args : {};
  const tool = typeof a.tool_name === "string" ? a.tool_name : "";
  if (!isJsonObject(args)) return { malformed: `arguments must be a JSON object, got ${describeValue(args)}`, tool };
  if (typeof a.tool_name !== "string" || a.tool_name === "")
    return { malformed: `tool_name must be a non-empty string, got ${describeValue(a.tool_name)}`, tool };
  if (!isJsonObject(a.input)) return { malformed: `input must be a JSON object, got ${describeValue(a.input)}`, tool };
  return { tool, arguments: a.input, via: VIA, ...(typeof a.tool_use_id === "string" ? { id: a.tool_use_id } : {}) };
}

/** `autoAllow`: a list of non-empty tool names (a bare string is refused: it would allow its letters), as a set. */
const autoAllowRule: OptionRule<ReadonlySet<string>> = (v, where, option) => {
  if (v === undefined) return new Set();
  if (typeof v === "string")
    throw new OptionsError(where, option, `${where}: ${option} must be a list of tool names such as ["Read"], got the string ${pyStr(v)}`);
  if (typeof (v as Iterable<string>)?.[Symbol.iterator] !== "function")
    throw new OptionsError(where, option, `${where}: ${option} must be a list of tool names, got ${describeValue(v)}`);
  const names = [...(v as Iterable<unknown>)];
  for (const n of names) {
    if (typeof n !== "string" || n === "")
      throw new OptionsError(where, option, `${where}: ${option} entries must be non-empty tool names, got ${describeValue(n)}`);
  }
  return new Set(names as string[]);
};

/** `servers`: served registries (anything with `argumentError`), as a frozen list. */
const serversRule: OptionRule<readonly ServedArgumentCheck[]> = (v, where, option) => {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => x && typeof (x as ServedArgumentCheck).argumentError === "function")) {
    throw new OptionsError(
      where,
      option,
      `${where}: ${option} must be a list of served registries (McpServerSpec, from serveRegistry), got ${describeValue(v)}`,
    );
  }
  return Object.freeze([...v] as ServedArgumentCheck[]);
};

/** The options of `ApprovalServer`, declared once; a key outside it (`timeout_s`, `token`, ...) is refused by name. */
const APPROVAL_SERVER_OPTIONS = {
  asker: SEAM_OPTION_RULES.asker,
  timeoutMs: opt.timeoutMs(),
  autoAllow: autoAllowRule,
  autoAllowWhen: opt.fn<AutoAllowWhen>("(tool, args) => boolean"),
  autonomy: opt.oneOf<Autonomy>(["auto", "gated"], "gated"),
  ctx: SEAM_OPTION_RULES.ctx,
  auditPath: SEAM_OPTION_RULES.auditPath,
  sessionIdleMs: SESSION_OPTION_RULES.sessionIdleMs,
  maxSessions: SESSION_OPTION_RULES.maxSessions,
  heartbeatMs: (v: unknown, where: string) => checkHeartbeatMs(v, where),
  servers: serversRule,
} as const;

const TOKEN_HINT = { token: "the bearer token is always generated: a caller-supplied one ends up a constant in somebody's config file" };

/**
 * `ApprovalServer`'s options checked, defaults filled in: what
 * `approvalServerFromPolicy` takes. `bootstrap` builds one from facts it
 * checked when the module was decorated and scanned.
 */
export type ApprovalPolicy = CheckedOptions<typeof APPROVAL_SERVER_OPTIONS>;

/** Check `options` against the spec: the policy, or `OptionsError` naming the option and what is accepted. */
export function checkApprovalServerOptions(options: ApprovalServerOptions): ApprovalPolicy {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new OptionsError(
      "ApprovalServer",
      "options",
      `ApprovalServer: options must be an object with at least { asker }, got ${describeValue(options)}`,
    );
  }
  return checkOptions(options, "ApprovalServer", APPROVAL_SERVER_OPTIONS, TOKEN_HINT);
}

/** The defaults of every option but the Asker (what `new ApprovalServer({ asker })` would have). */
export function approvalPolicy(asker: Asker, given: Partial<ApprovalPolicy> = {}): ApprovalPolicy {
  const defaults: ApprovalPolicy = {
    asker,
    timeoutMs: undefined,
    autoAllow: new Set(),
    autoAllowWhen: undefined,
    autonomy: "gated",
    ctx: undefined,
    auditPath: undefined,
    sessionIdleMs: SESSION_DEFAULTS.sessionIdleMs,
    maxSessions: SESSION_DEFAULTS.maxSessions,
    heartbeatMs: DEFAULT_HEARTBEAT_MS,
    servers: [],
  };
  return Object.freeze({ ...defaults, ...given });
}

/** Policies built by `approvalServerFromPolicy`: the constructor takes them as they are. */
const checkedPolicies = new WeakSet<object>();

/** An `ApprovalServer` on a policy already checked (bootstrap's entry): no option is checked again. */
export function approvalServerFromPolicy(policy: ApprovalPolicy): ApprovalServer {
  checkedPolicies.add(policy);
  return new ApprovalServer(policy as unknown as ApprovalServerOptions);
}

/**
 * An MCP server with one tool, `approve`, that the Claude CLI calls for every
 * permission prompt (`--permission-prompt-tool`). Order per prompt:
 * `autoAllow` (+ `autoAllowWhen`), then the tier, then the Asker under the
 * server's deadline. The answer is JSON text — `{"behavior": "allow",
 * "updatedInput": ...}` or `{"behavior": "deny", "message": ...}` — and the
 * handler never throws: a malformed request, an Asker that throws, a timeout
 * and a stop mid-prompt are all denials with the reason attached. Default deny.
 *
 * Lifecycle: `start()` asks the OS for a free loopback port, generates a
 * bearer token, writes the CLI config document to a 0600 file (`configPath`)
 * and serves; `stop()` denies pending prompts, releases the port and removes
 * the file. Both are idempotent; `start()` after `stop()` serves again on a
 * new port with a new token. `promptsSeen` and `decisions` accumulate over
 * the object's life.
 *
 * Security: the token is the fence, not loopback — anything able to reach the
 * port could otherwise answer prompts on the agent's behalf. Only the 0600
 * config file carries it; `cliOptions()` names that file, so the token never
 * appears in the CLI's argv (which every local user can read).
 */
export class ApprovalServer implements AsyncDisposable {
  /** The qualified name of the prompt tool: `mcp__agentkit_approvals__approve`. */
  readonly toolName = qualifiedName(APPROVAL_SERVER_NAME, APPROVAL_TOOL_NAME);
  /** The tier (default `"gated"`). */
  readonly autonomy: Autonomy;
  /** The server's deadline, or `undefined` (forever). */
  readonly timeoutMs: number | undefined;
  /** The pre-approved tool names. */
  readonly autoAllow: ReadonlySet<string>;
  /** How long a waiting prompt may be silent before the CLI gets a progress heartbeat; 0: never. */
  readonly heartbeatMs: number;

  private readonly asker: Asker;
  private readonly servers: readonly ServedArgumentCheck[];
  private readonly autoAllowWhen?: AutoAllowWhen;
  private readonly audit: ApprovalAudit;
  private readonly sessionLimits: { sessionIdleMs: number; maxSessions: number };
  private prompts = 0;
  /** The one-tool catalog the serve path serves (built once; the listener is per `start()`). */
  private readonly catalog = buildCatalog([approveTool((args, ctx) => this.answer(args, ctx))], APPROVAL_SERVER_NAME);
  /** What each served call's context derives from (never cancelled: `stop()` denies pending prompts itself). */
  private readonly base = new RunContext();
  private running: Running | null = null;
  private readonly inflight = new Set<Promise<unknown>>();
  private lifecycle: Promise<unknown> = Promise.resolve();

  /** Build a server (nothing binds until `start()`). Throws `OptionsError` naming a bad option. */
  constructor(options: ApprovalServerOptions) {
    const p = checkedPolicies.has(options) ? (options as unknown as ApprovalPolicy) : checkApprovalServerOptions(options);
    this.asker = p.asker;
    this.timeoutMs = p.timeoutMs;
    this.heartbeatMs = p.heartbeatMs;
    this.servers = p.servers;
    this.autonomy = p.autonomy;
    this.autoAllow = p.autoAllow;
    this.autoAllowWhen = p.autoAllowWhen;
    this.audit = new ApprovalAudit({ ctx: p.ctx, auditPath: p.auditPath });
    this.sessionLimits = { sessionIdleMs: p.sessionIdleMs, maxSessions: p.maxSessions };
  }

  /** `new ApprovalServer(options).start()`: `await using approvals = await ApprovalServer.start({ asker })`. */
  static start(options: ApprovalServerOptions): Promise<ApprovalServer> {
    return new ApprovalServer(options).start();
  }

  /** The first served registry's refusal of the prompt's arguments, or `undefined`. */
  private argumentError(prompt: GateSubject): string | undefined {
    for (const server of this.servers) {
      const refused = server.argumentError(prompt.tool, prompt.arguments);
      if (refused !== undefined) return refused;
    }
    return undefined;
  }

  /** How many `approve` calls reached the server (malformed ones included). */
  get promptsSeen(): number {
    return this.prompts;
  }

  /** Every decision, in the order settled (a live, read-only view). */
  get decisions(): readonly GateRecord[] {
    return this.audit.decisions;
  }

  /** The path of the JSONL audit file, when `auditPath` was given. */
  get auditPath(): string | undefined {
    return this.audit.auditPath;
  }

  /** True between `start()` and `stop()`. */
  get serving(): boolean {
    return this.running !== null;
  }

  private live(what: string): Running {
    if (!this.running) throw notStarted(what);
    return this.running;
  }

  /** The MCP endpoint, e.g. `http://127.0.0.1:53411/mcp`. Throws an `AgentkitError` (code `approval_server_not_started`) unless started. */
  get url(): string {
    return this.live("url").transport.url;
  }

  /** `{ Authorization: "Bearer <token>" }` for this run. Throws unless started. */
  get authHeaders(): Readonly<Record<string, string>> {
    return this.live("authHeaders").transport.authHeaders;
  }

  /** The 0600 config file (`cliOptions().mcpConfig[0]`), holding `configDocument()`; removed by `stop()`. Throws unless started. */
  get configPath(): string {
    return this.live("configPath").written.path;
  }

  /**
   * A fresh copy of the config file's document (the token inside: a live credential). Throws an `AgentkitError`
   * (code `approval_server_not_started`) unless started.
   */
  configDocument(): ApprovalConfigDocument {
    const { mcpServers } = this.live("configDocument()").document;
    return { mcpServers: Object.fromEntries(Object.entries(mcpServers).map(([name, e]) => [name, { ...e, headers: { ...e.headers } }])) };
  }

  /**
   * Options for `ClaudeCliCognition`: `{ mcpConfig: [configPath],
   * strictMcpConfig: true, permissionPromptTool, settingSources: "" }`. The
   * config goes by the 0600 file's path, so the token never appears in the
   * CLI's argv. The empty `settingSources` is part of the approval guarantee:
   * an ambient `permissions.allow` would otherwise settle a call before the
   * prompt tool sees it. Throws an `AgentkitError` (code `approval_server_not_started`) unless started.
   */
  cliOptions(): ApprovalCliOptions {
    return {
      mcpConfig: [this.live("cliOptions()").written.path],
      strictMcpConfig: true,
      permissionPromptTool: this.toolName,
      settingSources: "",
    };
  }

  /**
   * Bind an ephemeral loopback port, write the 0600 config and serve.
   * Idempotent while serving; after `stop()`, starts afresh (new port, new
   * token, new file). With `auditPath`, the audit file is opened first, so a
   * bad path fails here (code `audit_sink`), not on the first prompt.
   * Resolves to `this`.
   */
  start(): Promise<this> {
    return this.serialise(async () => {
      if (this.running) return;
      await this.audit.check();
      const serverFactory = servedServerFactory(
        this.catalog,
        { ctx: this.base, heartbeatMs: this.heartbeatMs, heartbeatText: waitingWords, fixedTools: true },
        // calls counted only: stop() denies the pending prompts itself (as the CLI's JSON), not as "the server stopped"
        { calls: 0 },
      );
      const transport = await LoopbackMcpTransport.bind({
        serverFactory,
        port: 0,
        auth: "token",
        ...this.sessionLimits,
      });
      let written: WrittenMcpConfig | null = null;
      try {
        const document: ApprovalConfigDocument = {
          mcpServers: { [APPROVAL_SERVER_NAME]: { type: "http", url: transport.url, headers: { ...transport.authHeaders } } },
        };
        written = writeMcpConfig(document);
        await transport.start();
        this.running = { transport, written, document, controller: new AbortController() };
      } catch (err) {
        await transport.stop();
        if (written) removeMcpConfig(written);
        throw err;
      }
    }).then(() => this);
  }

  /**
   * Stop: pending prompts are denied (source `error`, "the approval server
   * stopped before anyone answered") and recorded, then the port is released
   * and the config file removed. Idempotent; resolves when the port is free.
   */
  stop(): Promise<void> {
    return this.serialise(async () => {
      const run = this.running;
      if (!run) return;
      this.running = null;
      run.controller.abort(new Error("the approval server stopped before anyone answered"));
      await Promise.allSettled([...this.inflight]);
      // Let the SDK write those denials to their streams before the listener closes the connections.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        await run.transport.stop();
      } finally {
        removeMcpConfig(run.written);
      }
    });
  }

  /** Same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private serialise(op: () => Promise<void>): Promise<void> {
    const next = this.lifecycle.then(op, op);
    // Swallow kept: the tail only orders the next lifecycle step; the caller awaits `next`.
    this.lifecycle = next.catch(() => undefined);
    return next;
  }

  /** One `approve` call, as the serve path runs it: counted, answered, and awaited by `stop()`. */
  private answer(args: Record<string, unknown>, ctx: RunContext): Promise<string> {
    const work = this.call(args, ctx.signal);
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work));
    return work;
  }

  /** Answer one prompt. Never throws: every path ends in valid JSON text. */
  private async call(args: unknown, requestSignal: AbortSignal): Promise<string> {
    this.prompts++;
    try {
      const parsed = parsePrompt(args);
      let prompt: GateSubject;
      let verdict: GateVerdict;
      let refused: string | undefined;
      const run = this.running;
      if ("malformed" in parsed) {
        prompt = { tool: parsed.tool, arguments: {}, via: VIA };
        verdict = errorVerdict(prompt, `malformed permission request: ${parsed.malformed}`, false);
      } else if (!run || run.controller.signal.aborted) {
        prompt = parsed;
        verdict = errorVerdict(prompt, "the approval server is stopping", false);
      } else if ((refused = this.argumentError(parsed)) !== undefined) {
        // A call that cannot run is not put to a person: the model reads why, and may call again.
        prompt = parsed;
        verdict = errorVerdict(prompt, `the call cannot run: ${refused}`, false);
      } else {
        prompt = parsed;
        const abandon = abandonment(run.controller.signal, requestSignal);
        try {
          verdict = await gateVerdict({
            ...prompt,
            asker: this.asker,
            timeoutMs: this.timeoutMs,
            autoAllow: this.autoAllow,
            autoAllowWhen: this.autoAllowWhen,
            // every permission prompt is a key step: "gated" asks, "auto" allows (source autonomy)
            keyStep: true,
            autonomy: this.autonomy,
            question: `The Claude CLI asks to run ${pyStr(prompt.tool)} with ${wireJson(prompt.arguments)}. Allow it?`,
            signal: abandon.signal,
          });
        } finally {
          abandon.dispose();
        }
      }
      return answerText(await this.audit.record(prompt, verdict));
    } catch (err) {
      // Unreachable by construction (decide and record never throw); a deny is still valid JSON for the CLI.
      return wireJson({ behavior: "deny", message: `approval failed: ${errorLine(err)}; denied` });
    }
  }
}
