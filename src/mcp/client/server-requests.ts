/**
 * @module mcp/client/server-requests
 * What an MCP server may ask of the client, answered by the run named at
 * `MCPClient.open(server, { ctx })`: `elicitation/create` by its `Asker`,
 * `sampling/createMessage` by its `LLM` (through the gate under `"gated"`),
 * `roots/list` by the roots given to `open`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, Root } from "@modelcontextprotocol/sdk/types.js";
import type { Decision, Elicitation } from "../../agents/elicitation.js";
import type { Message } from "../../agents/llm.js";
import type { RunContext } from "../../context/run-context.js";
import { randomUUID } from "node:crypto";
import { GateRecorder } from "../../gate/gate-recorder.js";
import { gateVerdict } from "../../gate/gate.js";
import { deepFreeze } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import { contentText } from "../../wire/content.js";
import { sdkTypes } from "../sdk.js";

/** The gate's `via` for a server's sampling request (handed to the Asker as `Elicitation.source`). */
export const SAMPLING_VIA = "mcp_sampling";
/** `Elicitation.source` of a server's `elicitation/create`. */
export const ELICITATION_SOURCE = "mcp_elicitation";

/** The client capabilities declared for a run: form (defaults applied) and URL elicitation, sampling, roots with `listChanged`. */
export function runCapabilities(): ClientCapabilities {
  return { elicitation: { form: { applyDefaults: true }, url: {} }, sampling: {}, roots: { listChanged: true } };
}

/** Check and freeze a roots list: each root needs a `file://` URI. */
export function checkRoots(roots: readonly Root[] | undefined, where: string): readonly Root[] {
  const list = roots ?? [];
  if (!Array.isArray(list)) throw new TypeError(`${where}: roots must be an array of { uri: "file://...", name? }`);
  for (const r of list) {
    if (!r || typeof r.uri !== "string" || !r.uri.startsWith("file://")) {
      throw new TypeError(`${where}: each root needs a file:// uri, got ${JSON.stringify(r)}`);
    }
  }
  return deepFreeze(list.map((r) => ({ ...r })));
}

/**
 * Answers a server's requests for one `MCPClient`. `server` names the server
 * in warnings; `ctx` is the run (none: elicitation and sampling are declined).
 */
export class ServerRequests {
  private currentRoots: readonly Root[];
  /** The gate's recorder for sampling verdicts (`gate.check` on the run). */
  private readonly recorder = new GateRecorder({ where: "MCPClient" });

  constructor(
    private readonly server: string,
    private readonly ctx: RunContext | undefined,
    roots: readonly Root[],
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

  /** Install the three handlers on `session` (before `connect`). */
  install(session: Client): void {
    session.setRequestHandler(sdkTypes.ElicitRequestSchema, (request, extra) => this.elicit(request, extra.signal));
    session.setRequestHandler(sdkTypes.CreateMessageRequestSchema, (request, extra) => this.sample(request, extra.signal));
    session.setRequestHandler(sdkTypes.ListRootsRequestSchema, () => ({ roots: this.currentRoots.map((r) => ({ ...r })) }));
  }

  /**
   * `elicitation/create` -> the run's Asker, handed `{ signal, questionId }`:
   * the request's signal (the server cancelled, timed out or went away) so the
   * Asker withdraws the question, and a fresh id. Its Decision is mapped back
   * to accept / decline / cancel.
   */
  async elicit(request: ElicitRequest, signal: AbortSignal = new AbortController().signal): Promise<ElicitResult> {
    const asker = this.ctx?.asker;
    if (!asker) {
      getLogger().warn(`MCP ${this.server} asked the user something (elicitation/create) and the run has no Asker: declined. Pass ctx with an asker to MCPClient.open() to answer.`);
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
      getLogger().warn(`MCP ${this.server}: the Asker threw on an elicitation (${err instanceof Error ? err.message : String(err)}): cancelled`);
      return { action: "cancel" };
    }
    return elicitResult(decision, params.mode === "url");
  }

  /** `sampling/createMessage` -> the gate (under `"gated"` the Asker is asked), then the run's LLM. */
  async sample(request: CreateMessageRequest, signal?: AbortSignal): Promise<CreateMessageResult> {
    const ctx = this.ctx;
    const llm = ctx?.llm;
    const p = request.params;
    if (!ctx || !llm) {
      throw new sdkTypes.McpError(sdkTypes.ErrorCode.InvalidRequest, `the client has no model for sampling (the run given to MCPClient.open has no llm)`);
    }
    const messages: Message[] = [
      ...(p.systemPrompt ? [{ role: "system" as const, content: p.systemPrompt }] : []),
      ...p.messages.map((m) => ({ role: m.role, content: contentText(m.content) })),
    ];
    const hints = (p.modelPreferences?.hints ?? []).map((h) => h.name).filter((n): n is string => typeof n === "string" && n !== "");
    const subject = { tool: "sampling/createMessage", arguments: { server: this.server, messages: messages.map((m) => ({ role: m.role, content: m.content })), maxTokens: p.maxTokens }, via: SAMPLING_VIA };
    const given = await gateVerdict({
      ...subject,
      asker: ctx.asker,
      autonomy: ctx.autonomy,
      keyStep: true,
      signal,
      question: `MCP ${this.server} asks to use the model (sampling, up to ${p.maxTokens} tokens). Allow?`,
    });
    const verdict = await this.recorder.record(subject, given, ctx);
    if (!verdict.allowed) throw new sdkTypes.McpError(sdkTypes.ErrorCode.InvalidRequest, `sampling refused: ${verdict.refusal}`);
    // The request names no model: hints are advisory, and the provider's
    // default decides (a hint such as "claude" is not a model id).
    const turn = await llm.complete({ model: "", modelHints: hints, maxTokens: p.maxTokens, messages, tools: [], signal: signal ?? ctx.signal });
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
      // Fields left out are filled with the schema's defaults by the SDK (capability form.applyDefaults).
      const content = v && typeof v === "object" && !Array.isArray(v) ? { ...(v as Record<string, string | number | boolean | string[]>) } : {};
      return { action: "accept", content };
    }
    case "reject":
      return { action: "decline" };
    default:
      return { action: "cancel" };
  }
}
