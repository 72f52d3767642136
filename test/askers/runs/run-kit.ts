/**
 * @module test/askers/runs/run-kit
 * The parts of the durable-run tests: a model that answers by turn number
 * and logs each turn it answers (so a test sees a finished turn is never
 * requested again), tools that count their side effects, and one that can
 * be made to hang until its run is cancelled (a "crash" inside a call).
 */
import { until as waitUntil } from "../../helpers/wait.js";
import {
  Agent,
  Cancelled,
  ReActCognition,
  tool,
  toolCall,
  type LLM,
  type LLMRequest,
  type LLMTurn,
  type RunContext,
} from "../../../src/index.js";

/** How many times each tool's body ran, and with what. */
export interface Effects {
  read: number;
  send: Array<Record<string, unknown>>;
  deploy: Array<Record<string, unknown>>;
}

/** The script: turn 1 reads, 2 sends, 3 deploys (needs approval), 4 answers. */
export function defaultScript(n: number): LLMTurn {
  switch (n) {
    case 1:
      return { content: "reading", toolCalls: [toolCall("c1", "read", { q: "status" })] };
    case 2:
      return { content: "sending", toolCalls: [toolCall("c2", "send", { to: "ops" })] };
    case 3:
      return { content: "deploying", toolCalls: [toolCall("c3", "deploy", { env: "prod" })] };
    default:
      return { content: `done after ${n - 1} turns` };
  }
}

/** Waits until `signal` aborts, then rejects with `Cancelled` (a call or turn that never ends by itself). */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const stop = () => reject(new Cancelled("stopped"));
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop, { once: true });
  });
}

/** A model answering turn n (one more than the assistant messages it is shown) from `script`; `hangAt` never answers that turn. */
export class StepModel implements LLM {
  /** The turn numbers answered (or hung on), in order. */
  readonly asked: number[] = [];
  /** The requests received. */
  readonly requests: LLMRequest[] = [];

  constructor(
    private readonly script: (n: number) => LLMTurn = defaultScript,
    private readonly hangAt?: number,
  ) {}

  async complete(request: LLMRequest): Promise<LLMTurn> {
    const n = request.messages.filter((m) => m.role === "assistant").length + 1;
    this.asked.push(n);
    this.requests.push(request);
    if (n === this.hangAt) return untilAborted(request.signal);
    return Promise.resolve(this.script(n));
  }
}

/** The three tools; `hang` names one whose body starts (and counts) but never ends until the run is cancelled. */
export function makeTools(effects: Effects, options: { hang?: "read" | "send" | "deploy"; deployArg?: "env" | "target" } = {}) {
  const body =
    (name: "read" | "send" | "deploy", count: (args: Record<string, unknown>) => void) =>
    async (args: Record<string, unknown>, ctx: RunContext) => {
      count(args);
      if (options.hang === name) await untilAborted(ctx.signal);
      return `${name} ok ${JSON.stringify(args)}`;
    };
  const envSchema = { type: "object", properties: { [options.deployArg ?? "env"]: { type: "string" } } };
  return [
    tool(
      { name: "read", description: "reads", sideEffecting: false, input: { type: "object", properties: { q: { type: "string" } } } },
      body("read", () => effects.read++),
    ),
    tool(
      { name: "send", description: "sends", sideEffecting: true, input: { type: "object", properties: { to: { type: "string" } } } },
      body("send", (a) => effects.send.push(a)),
    ),
    tool(
      { name: "deploy", description: "deploys", sideEffecting: true, requiresApproval: true, input: envSchema },
      body("deploy", (a) => effects.deploy.push(a)),
    ),
  ];
}

/** Fresh effect counters. */
export function noEffects(): Effects {
  return { read: 0, send: [], deploy: [] };
}

/** The agent of these tests. */
export function makeAgent(
  effects: Effects,
  options: { hang?: "read" | "send" | "deploy"; model?: string; deployArg?: "env" | "target"; approvalTimeoutMs?: number } = {},
): Agent {
  return new Agent({
    name: "ops",
    model: options.model ?? "m1",
    prompt: "operate",
    cognition: new ReActCognition({
      tools: makeTools(effects, options),
      ...(options.approvalTimeoutMs ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    }),
  });
}

/** Resolves once `check()` is true (test/helpers/wait.ts `until`, a 30 s deadline scaled for the machine; names `what` when it never is). */
export const until = (check: () => boolean | Promise<boolean>, what: string): Promise<void> => waitUntil(check, what, 30_000);
