/**
 * @module mcp/client/mcp-task
 * `McpTask`: a tool call a server answered with a task (the
 * `io.modelcontextprotocol/tasks` extension, 2026-07-28), driven to its
 * final result by polling `tasks/get` — or a call answered at once, as an
 * already `completed` task.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { Asker } from "../../contracts/elicitation.js";
import type { RunContext, TracedCall } from "../../context/run-context.js";
import { endRequest, noteRequest } from "../../context/run-observer.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import { getLogger, ignoreRejection } from "../../util/logger.js";
import type { CallProgress } from "./call-progress.js";
import { McpRequestError } from "./mcp-request.error.js";
import { isTerminal, type McpTaskStatus, type TaskSnapshot } from "./task-codec.js";

/** How often a task is polled when its server names no `pollIntervalMs`, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;
/** The shortest wait between two polls, whatever the server says (a `pollIntervalMs` of 0 must not spin). */
const MIN_POLL_INTERVAL_MS = 10;

/**
 * What names a task across processes (`McpTask.reference`): plain JSON, safe
 * to store and give back to `MCPClient.resumeTask()` after a restart. The
 * task id is a bearer handle on servers that bind it to nothing else: store
 * it as you would a token.
 */
export interface McpTaskReference {
  /** Always `"mcp-task"`. */
  readonly kind: "mcp-task";
  /** The server, as `String(client.server)` renders it: `resumeTask` refuses a reference to another server. */
  readonly server: string;
  /** The tool that was called (its name on the server). */
  readonly tool: string;
  readonly taskId: string;
  /** When the server created the task (ISO 8601), when it said. */
  readonly createdAt: string | null;
  /** The task's time to live in ms from `createdAt`, as last seen; `null`: none. */
  readonly ttlMs: number | null;
}

/** @internal What an `McpTask` needs of its `MCPClient` (see `MCPClient.taskChannel`). */
export interface TaskChannel {
  /** `String(client.server)`. */
  readonly server: string;
  get(taskId: string, signal: AbortSignal | undefined): Promise<TaskSnapshot>;
  update(taskId: string, inputResponses: Record<string, unknown>): Promise<void>;
  cancel(taskId: string): Promise<void>;
  /** Answer one input request of a task (`undefined`: this client cannot answer that method). */
  answer(
    request: { readonly method: string; readonly params?: Record<string, unknown> },
    asker: Asker | undefined,
    signal: AbortSignal,
  ): Promise<unknown>;
  /** The client's checks of a final result (output schema). */
  checkResult(tool: string, result: CallToolResult): void;
  /** Wrap a failed request into the client's error. */
  failure(request: string, err: unknown): Error;
}

/** How a task is driven: the run (Asker, signal, trace) and where progress goes. */
export interface TaskDriving {
  readonly ctx?: RunContext;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: CallProgress) => void;
  /** The span the task's transitions are noted on; `result()` ends it when given by `callTool` (its own span otherwise). */
  readonly traced?: TracedCall;
  /** Opens the span of a `result()` that has none. */
  readonly trace?: () => TracedCall | undefined;
  /** The reference to keep (a resumed task keeps the one it was resumed from). */
  readonly reference?: McpTaskReference;
}

/**
 * A tool call that may outlive one request. `MCPClient.startTool()` returns
 * one; `MCPClient.callTool()` uses one and returns its `result()`.
 *
 * - An answer that came in the call is a task already `completed`, whose
 *   `id` and `reference` are `null`.
 * - Otherwise `id` is the server's task id and `reference` the plain JSON to
 *   store for `MCPClient.resumeTask()` after a restart.
 *
 * `result()` polls `tasks/get` at the server's `pollIntervalMs` (the first
 * call starts polling; later calls share it), answers `input_required`
 * questions through the run's Asker (each key once, sent with `tasks/update`),
 * reports the status it starts from and each change of it to `onProgress` as
 * `{ progress, message }`, and
 * resolves with the final `CallToolResult`. Aborting the run sends
 * `tasks/cancel` and rejects with `Cancelled`.
 */
export class McpTask {
  /** The server's task id; `null` for an answer that came in the call. */
  readonly id: string | null;
  /** What to store to resume this task elsewhere; `null` for an answer that came in the call. */
  readonly reference: McpTaskReference | null;
  private snapshot: TaskSnapshot | undefined;
  private done?: Promise<CallToolResult>;
  /** Aborted by `cancel()` (and by the run's signal, followed). */
  private readonly stop = new AbortController();
  /** Question keys already asked (a key is asked once in a task's life). */
  private readonly asked = new Set<string>();
  /** Answers not yet acknowledged by `tasks/update`, by key. */
  private readonly unsent = new Map<string, unknown>();
  /** Ends every question still waiting for a person when the task ends. */
  private readonly questions = new AbortController();
  private progress = 0;
  /** When the first snapshot (or the answer) arrived: a task whose server named no `createdAt` lives from here. */
  private readonly receivedAt = Date.now();
  /** True once `cancel()` was called (it sends its own `tasks/cancel`; a run aborted, whatever its reason, gets one sent for it). */
  private cancelling = false;
  /** The `tasks/update` in flight. */
  private sending?: Promise<void>;

  /** @internal Use `MCPClient.startTool()` / `resumeTask()`. */
  constructor(
    private readonly channel: TaskChannel | undefined,
    private readonly tool: string,
    first: TaskSnapshot | CallToolResult,
    private readonly driving: TaskDriving = {},
  ) {
    if ("taskId" in first && typeof first.taskId === "string" && "status" in first) {
      const s = first as TaskSnapshot;
      this.snapshot = s;
      this.id = s.taskId;
      this.reference =
        driving.reference ??
        Object.freeze({
          kind: "mcp-task",
          server: channel!.server,
          tool,
          taskId: s.taskId,
          createdAt: s.createdAt ?? null,
          ttlMs: s.ttlMs,
        });
    } else {
      this.id = null;
      this.reference = null;
      this.done = Promise.resolve(first as CallToolResult);
    }
  }

  /** The status last seen (`completed` for an answer that came in the call). */
  get status(): McpTaskStatus {
    return this.snapshot?.status ?? "completed";
  }

  /**
   * The final result, polling until the task ends (see the class note).
   *
   * @throws Cancelled when the run was aborted or `cancel()` was called (the server was sent `tasks/cancel`).
   * @throws McpRequestError when the task failed (its JSON-RPC error named, `rpcCode` its code), was cancelled by the
   * server, outlived its `ttlMs`, or a `tasks/get` failed.
   */
  result(): Promise<CallToolResult> {
    return (this.done ??= this.drive());
  }

  /**
   * Ask the server to cancel the task (`tasks/cancel`) and end a pending
   * `result()` with `Cancelled`. Cancelling is cooperative on the server: the
   * task may still finish. A no-op for a task that already ended.
   *
   * @throws McpRequestError when the server refused `tasks/cancel`.
   */
  async cancel(): Promise<void> {
    if (!this.id || isTerminal(this.status) || this.stop.signal.aborted) return;
    this.cancelling = true;
    this.stop.abort(new Cancelled(`MCP task ${this.id} ('${this.tool}') on ${this.channel!.server} was cancelled by its caller`));
    await this.channel!.cancel(this.id);
  }

  private async drive(): Promise<CallToolResult> {
    const channel = this.channel!;
    const id = this.id!;
    const traced = this.driving.traced ?? this.driving.trace?.();
    const signal = this.driving.signal ?? this.driving.ctx?.signal;
    const follow = (): void => this.stop.abort(signal?.reason);
    // tasks/cancel leaves in the abort's own turn, before the poll in flight unwinds (cancel() sends its own).
    const tell = (): void => {
      if (!this.cancelling)
        void this.channel!.cancel(id).catch(ignoreRejection(`tasks/cancel of MCP task ${id} after its run was aborted`));
    };
    this.stop.signal.addEventListener("abort", tell, { once: true });
    signal?.addEventListener("abort", follow, { once: true });
    if (signal?.aborted) follow();
    let ok = false;
    try {
      // callTool's span already noted the task's creation; a span of its own (startTool, resumeTask) starts with the status now.
      if (!this.driving.traced) this.note(traced, this.snapshot!);
      // The caller hears of the task at once (`agentkit call` draws its line): the status it was handed out (or resumed) with.
      this.report(this.snapshot!);
      let polledAt = performance.now();
      while (!isTerminal(this.snapshot!.status)) {
        this.checkTtl();
        const interval = Math.max(MIN_POLL_INTERVAL_MS, this.snapshot!.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
        await pause(polledAt + interval - performance.now(), this.stop.signal);
        polledAt = performance.now();
        const next = await channel.get(id, this.stop.signal);
        this.observe(traced, next);
        this.flush();
      }
      const result = this.finish(this.snapshot!);
      ok = result.isError !== true;
      return result;
    } catch (err) {
      if (this.stop.signal.aborted) throw this.cancelled(err);
      throw err;
    } finally {
      signal?.removeEventListener("abort", follow);
      this.stop.signal.removeEventListener("abort", tell);
      this.questions.abort(new Error(`MCP task ${id} ended`));
      if (!this.driving.traced) endRequest(traced, ok);
    }
  }

  /** The run (or `cancel()`) stopped the task (`tasks/cancel` is on its way): say so. */
  private cancelled(err: unknown): Cancelled {
    const reason = this.stop.signal.reason as unknown;
    if (reason instanceof Cancelled) return reason;
    return new Cancelled(
      `MCP tools/call '${this.tool}' on ${this.channel!.server} was cancelled while its task ${this.id} ran; the ` +
        `server was sent tasks/cancel`,
      reason ?? err,
    );
  }

  private checkTtl(): void {
    const s = this.snapshot!;
    if (s.ttlMs === null) return;
    const created = s.createdAt !== undefined ? Date.parse(s.createdAt) : NaN;
    const expires = (Number.isFinite(created) ? created : this.receivedAt) + s.ttlMs;
    if (Date.now() < expires) return;
    const why = new Error(
      `task ${this.id} outlived its ttlMs (${s.ttlMs} ms from ${s.createdAt ?? "its creation"}) while still ${s.status}`,
    );
    throw new McpRequestError(
      `tools/call '${this.tool}'`,
      this.channel!.server,
      undefined,
      why,
      "The server may have dropped it; call the tool again if that is safe",
    );
  }

  /** Take in a new snapshot: status changes to the trace and onProgress, new questions to the Asker. */
  private observe(traced: TracedCall | undefined, next: TaskSnapshot): void {
    const prev = this.snapshot!;
    this.snapshot = next;
    if (next.status !== prev.status || next.statusMessage !== prev.statusMessage) this.note(traced, next, prev.status);
    for (const [key, request] of Object.entries(next.inputRequests ?? {})) {
      if (this.asked.has(key)) continue;
      this.asked.add(key);
      void this.answer(key, request);
    }
  }

  private note(traced: TracedCall | undefined, s: TaskSnapshot, from?: McpTaskStatus): void {
    if (from === undefined || from !== s.status)
      noteRequest(traced, "mcp.task.status", {
        "mcp.task.id": s.taskId,
        "mcp.task.status": s.status,
        ...(from ? { "mcp.task.previous_status": from } : {}),
      });
    if (from !== undefined) this.report(s);
  }

  /** Tell `onProgress` where the task stands (`progress` counts the reports, from 1). */
  private report(s: TaskSnapshot): void {
    this.progress++;
    this.driving.onProgress?.({ progress: this.progress, message: s.statusMessage ?? s.status, task: { id: s.taskId, status: s.status } });
  }

  /** Ask one question (once per key), then send the answer with `tasks/update`. */
  private async answer(key: string, request: { readonly method: string; readonly params?: Record<string, unknown> }): Promise<void> {
    const asker = this.driving.ctx?.asker;
    let value: unknown;
    try {
      value = await this.channel!.answer(request, asker, this.questions.signal);
    } catch (err) {
      getLogger().warn(
        `MCP task ${this.id} on ${this.channel!.server}: answering its question '${key}' (${request.method}) ` +
          `failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    if (value === undefined) {
      getLogger().warn(
        `MCP task ${this.id} on ${this.channel!.server} asked '${key}' with ${request.method}, which this client ` +
          `does not answer inside a task`,
      );
      return;
    }
    if (isTerminal(this.status)) return;
    this.unsent.set(key, value);
    this.flush();
  }

  /** Send the answers not yet acknowledged; a refused update is sent again after the next poll (never asked again). */
  private flush(): void {
    if (!this.unsent.size || isTerminal(this.status) || this.sending) return;
    const batch = Object.fromEntries(this.unsent);
    this.sending = this.channel!.update(this.id!, batch)
      .then(
        () => {
          for (const key of Object.keys(batch)) if (this.unsent.get(key) === batch[key]) this.unsent.delete(key);
        },
        (err: unknown) =>
          getLogger().warn(
            `MCP task ${this.id} on ${this.channel!.server}: tasks/update failed, sent again after the next poll: ` +
              `${err instanceof Error ? err.message : String(err)}`,
          ),
      )
      .finally(() => {
        this.sending = undefined;
      });
  }

  private finish(s: TaskSnapshot): CallToolResult {
    const request = `tools/call '${this.tool}'`;
    if (s.status === "completed") {
      const result = s.result ?? { content: [] };
      this.channel!.checkResult(this.tool, result);
      return result;
    }
    if (s.status === "failed") {
      const why = new Error(`task ${s.taskId} failed: ${s.error?.message ?? s.statusMessage ?? "no reason given"}`);
      throw new McpRequestError(request, this.channel!.server, typeof s.error?.code === "number" ? s.error.code : undefined, why);
    }
    const why = new Error(`task ${s.taskId} was cancelled by the server${s.statusMessage ? ` (${s.statusMessage})` : ""}`);
    throw new McpRequestError(request, this.channel!.server, undefined, why);
  }
}

/** Wait `ms` (none when ≤ 0), or reject with the signal's reason when it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
