/**
 * @module mcp/client/server-requests
 * What an MCP server may ask of the client, answered by the run named at
 * `MCPClient.start(server, { ctx })`: `elicitation/create` by its `Asker`,
 * `sampling/createMessage` by its `LLM` (through the gate under `"gated"`),
 * `roots/list` by the roots given to `start`.
 */
import type {
  Client,
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Root,
} from "@modelcontextprotocol/client";
import type { Asker, Decision, Elicitation } from "../../contracts/elicitation.js";
import { formContent } from "../../agents/form-fields.js";
import type { Message } from "../../contracts/llm.js";
import type { RunContext } from "../../context/run-context.js";
import { randomUUID } from "node:crypto";
import { OptionsError } from "../../errors/options.error.js";
import { GateRecorder } from "../../gate/gate-recorder.js";
import { gateVerdict } from "../../gate/gate.js";
import { deepFreeze } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import { opt, type OptionRule } from "../../options/option-checks.js";
import { contentText } from "../../wire/content.js";
import type { ClientSdk } from "../peers/sdk-client.js";

/** The gate's `via` for a server's sampling request (handed to the Asker as `Elicitation.source`). */
export const SAMPLING_VIA = "mcp_sampling";
/** `Elicitation.source` of a server's `elicitation/create`. */
export const ELICITATION_SOURCE = "mcp_elicitation";

/** How many tokens a server's sampling request may have the model write, by default (a larger `maxTokens` is cut to it). */
export const DEFAULT_MAX_SAMPLING_TOKENS = 4096;
/** How many sampling and elicitation requests one server may have pending at once, by default. */
export const DEFAULT_MAX_SERVER_REQUESTS = 4;

/** The bounds on what one server may ask of the client (`MCPClient.start` options of the same names). */
export interface ServerRequestLimits {
  /** Sample without asking (then only `"gated"` asks, as for a key step). Default false: every sampling request asks the run's Asker. */
  readonly allowSampling: boolean;
  /** The most tokens a sampling request reaches the model with. */
  readonly maxSamplingTokens: number;
  /** Sampling plus elicitation requests pending at once; the excess is refused with a JSON-RPC error naming the cap. */
  readonly maxServerRequests: number;
}

/** The limit options of `MCPClient.start` as spec rules (defaults filled in). */
export const LIMIT_OPTION_RULES = {
  allowSampling: ((v, where, option) => {
    if (v !== undefined && typeof v !== "boolean")
      throw new OptionsError(where, option, `${where}: ${option} must be true or false, got ${JSON.stringify(v)}`);
    return v === true;
  }) as OptionRule<boolean>,
  maxSamplingTokens: opt.positiveInt(DEFAULT_MAX_SAMPLING_TOKENS),
  maxServerRequests: opt.positiveInt(DEFAULT_MAX_SERVER_REQUESTS),
} as const;

/**
 * The client capabilities declared for a run: form and URL elicitation,
 * sampling, roots with `listChanged`. Form defaults are not applied by the
 * client: the values sent are exactly those the Asker answered with (the
 * askers show a form's defaults and send them only as shown).
 */
export function runCapabilities(): ClientCapabilities {
  return { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } };
}

/** Check and freeze a roots list: each root needs a `file://` URI; `OptionsError` (option `roots`) otherwise. */
export function checkRoots(roots: readonly Root[] | undefined, where: string): readonly Root[] {
  const list = roots ?? [];
  if (!Array.isArray(list)) throw new OptionsError(where, "roots", `${where}: roots must be an array of { uri: "file://...", name? }`);
  for (const r of list) {
    if (!r || typeof r.uri !== "string" || !r.uri.startsWith("file://")) {
      throw new OptionsError(where, "roots", `${where}: each root needs a file:// uri, got ${JSON.stringify(r)}`);
    }
  }
  return deepFreeze(list.map((r) => ({ ...r })));
}

/**
 * Answers a server's requests for one `MCPClient`. `server` names the server
 * in warnings; `ctx` is the run (none: elicitation and sampling are declined);
 * `limits` bound what the server may ask (see `ServerRequestLimits`).
 */
export class ServerRequests {
  private currentRoots: readonly Root[];
  /** Sampling and elicitation requests being answered now. */
  private pending = 0;
  /** The gate's recorder for sampling verdicts (`gate.check` on the run). */
  private readonly recorder = new GateRecorder({ where: "MCPClient" });
  /** The SDK of the session the handlers are installed on: its `ProtocolError` carries a refusal's JSON-RPC code. */
  private sdk?: ClientSdk;

  constructor(
    private readonly server: string,
    private readonly ctx: RunContext | undefined,
    roots: readonly Root[],
    private readonly limits: ServerRequestLimits = {
      allowSampling: false,
      maxSamplingTokens: DEFAULT_MAX_SAMPLING_TOKENS,
      maxServerRequests: DEFAULT_MAX_SERVER_REQUESTS,
    },
  ) {
    this.currentRoots = roots;
  }

  /** The roots `roots/list` answers. */
  get roots(): readonly Root[] {
    return this.currentRoots;
  }

  /** Replace the roots (the caller sends `notifications/roots/list_changed`). */
  set roots(roots: readonly Root[]) {
    this.currentRoots = roots;
  }

  /**
   * Install the three handlers on `session` (before `connect`). On a
   * 2026-07-28 connection the SDK answers a server's `input_required`
   * through these same handlers (multi-round-trip), so the run's Asker and
   * LLM answer in both eras.
   */
  install(session: Client, sdk: ClientSdk): void {
    this.sdk = sdk;
    session.setRequestHandler("elicitation/create", (request, extra) => this.bounded(() => this.elicit(request, extra.mcpReq.signal)));
    session.setRequestHandler("sampling/createMessage", (request, extra) => this.bounded(() => this.sample(request, extra.mcpReq.signal)));
    session.setRequestHandler("roots/list", () => ({ roots: this.currentRoots.map((r) => ({ ...r })) }));
  }

  /** A refusal the server reads as a JSON-RPC error -32600 (Invalid Request) with `message`. */
  private refusal(message: string): Error {
    const sdk = this.sdk;
    return sdk ? new sdk.ProtocolError(sdk.ProtocolErrorCode.InvalidRequest, message) : Object.assign(new Error(message), { code: -32600 });
  }

  /** Run one server request under the cap on pending ones; past it, refuse at once (a JSON-RPC error naming the cap). */
  private async bounded<T>(answer: () => Promise<T>): Promise<T> {
    const cap = this.limits.maxServerRequests;
    if (this.pending >= cap) {
      throw this.refusal(
        `too many requests from this server at once: ${cap} sampling/elicitation requests are already pending (the ` +
          `client's cap, MCPClient.start maxServerRequests); send the next one after an answer`,
      );
    }
    this.pending++;
    try {
      return await answer();
    } finally {
      this.pending--;
    }
  }

  /**
   * `elicitation/create` -> the run's Asker, handed `{ signal, questionId }`:
   * the request's signal (the server cancelled, timed out or went away) so the
   * Asker withdraws the question, and a fresh id. Its Decision is mapped back
   * to accept / decline / cancel.
   */
  async elicit(
    request: ElicitRequest,
    signal: AbortSignal = new AbortController().signal,
    asker: Asker | undefined = this.ctx?.asker,
  ): Promise<ElicitResult> {
    if (!asker) {
      getLogger().warn(
        `MCP ${this.server} asked the user something (elicitation/create) and the run has no Asker: declined. Pass ` +
          `ctx with an asker to MCPClient.start() to answer.`,
      );
      return { action: "decline" };
    }
    const params = request.params;
    const question: Elicitation =
      params.mode === "url"
        ? { question: `${params.message}\nOpen this link: ${params.url}`, url: params.url, source: ELICITATION_SOURCE }
        : { question: params.message, form: { schema: params.requestedSchema as Record<string, unknown> }, source: ELICITATION_SOURCE };
    let decision: Decision;
    try {
      decision = await asker.ask(Object.freeze(question), Object.freeze({ signal, questionId: randomUUID() }));
    } catch (err) {
      getLogger().warn(
        `MCP ${this.server}: the Asker threw on an elicitation (${err instanceof Error ? err.message : String(err)}): cancelled`,
      );
      return { action: "cancel" };
    }
    return elicitResult(decision, params.mode === "url");
  }

  /**
   * One input request of an MCP task (`input_required` inside a task, answered
   * through `tasks/update`): `elicitation/create` is asked as the server's
   * own elicitation is (`asker`: the call's run's, else the client's),
   * `sampling/createMessage` goes through the gate to the client's model,
   * `roots/list` answers the roots; under the same cap on pending requests.
   * `undefined` for any other method.
   */
  async answerInput(
    request: { readonly method: string; readonly params?: Record<string, unknown> },
    asker: Asker | undefined,
    signal: AbortSignal,
  ): Promise<unknown> {
    const wire = { method: request.method, params: request.params ?? {} };
    if (request.method === "elicitation/create")
      return this.bounded(() => this.elicit(wire as ElicitRequest, signal, asker ?? this.ctx?.asker));
    if (request.method === "sampling/createMessage") return this.bounded(() => this.sample(wire as CreateMessageRequest, signal));
    if (request.method === "roots/list") return { roots: this.currentRoots.map((r) => ({ ...r })) };
    return undefined;
  }

  /** `sampling/createMessage` -> the gate (under `"gated"` the Asker is asked), then the run's LLM. */
  async sample(request: CreateMessageRequest, signal?: AbortSignal): Promise<CreateMessageResult> {
    const ctx = this.ctx;
    const llm = ctx?.llm;
    const p = request.params;
    if (!ctx || !llm) {
      throw this.refusal(`the client has no model for sampling (the run given to MCPClient.start has no llm)`);
    }
    const messages: Message[] = [
      ...(p.systemPrompt ? [{ role: "system" as const, content: p.systemPrompt }] : []),
      ...p.messages.map((m) => ({ role: m.role, content: contentText(m.content) })),
    ];
    const maxTokens = Math.min(p.maxTokens, this.limits.maxSamplingTokens);
    const asked = maxTokens < p.maxTokens ? `up to ${maxTokens} tokens; it asked for ${p.maxTokens}` : `up to ${maxTokens} tokens`;
    const hints = (p.modelPreferences?.hints ?? []).map((h) => h.name).filter((n): n is string => typeof n === "string" && n !== "");
    const subject = {
      tool: "sampling/createMessage",
      arguments: { server: this.server, messages: messages.map((m) => ({ role: m.role, content: m.content })), maxTokens },
      via: SAMPLING_VIA,
    };
    const given = await gateVerdict({
      ...subject,
      // Asked under every tier unless this server was allowed (allowSampling): a server must not spend the model unseen.
      requiresApproval: !this.limits.allowSampling,
      asker: ctx.asker,
      autonomy: ctx.autonomy,
      keyStep: true,
      signal,
      question: `MCP ${this.server} asks to use the model (sampling, ${asked}). Allow?`,
    });
    const verdict = await this.recorder.record(subject, given, ctx);
    if (!verdict.allowed) throw this.refusal(`sampling refused: ${verdict.refusal}`);
    // The request names no model: hints are advisory, and the provider's
    // default decides (a hint such as "claude" is not a model id).
    const turn = await llm.complete({ model: "", modelHints: hints, maxTokens, messages, tools: [], signal: signal ?? ctx.signal });
    return {
      role: "assistant",
      content: { type: "text", text: turn.content ?? "" },
      model: turn.model ?? hints[0] ?? "agentkit",
      stopReason: turn.stopReason === "max_tokens" ? "maxTokens" : turn.stopReason === "stop_sequence" ? "stopSequence" : "endTurn",
    };
  }
}

function elicitResult(decision: Decision, urlMode: boolean): ElicitResult {
  switch (decision?.kind) {
    case "approve":
    case "modify": {
      if (urlMode) return { action: "accept" };
      const v = decision.value;
      // Exactly the values the Asker answered with (a null field is an empty one, left out): nothing a person did not see is filled in.
      const content =
        v && typeof v === "object" && !Array.isArray(v)
          ? (formContent(v as Record<string, unknown>) as Record<string, string | number | boolean | string[]>)
          : {};
      return { action: "accept", content };
    }
    case "reject":
      return { action: "decline" };
    default:
      return { action: "cancel" };
  }
}
