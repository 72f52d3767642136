/**
 * @module context/client-channel
 * What a served MCP call can reach of the client that made it: progress,
 * logging, elicitation and sampling. The core only declares it; the serving
 * layer (`mcp/`) supplies one per call through `RunContext.child({ channel })`.
 */

/** MCP logging levels, least severe first (`logging/setLevel` filters by this order). */
export const LOG_LEVELS = Object.freeze(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const);

/** One MCP logging level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** An elicitation request (`elicitation/create` params): a message and a flat JSON Schema of what to ask. */
export interface ElicitRequest {
  readonly message: string;
  readonly requestedSchema: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** The client's answer to an elicitation. */
export interface ElicitResult {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** A sampling request (`sampling/createMessage` params). */
export interface SampleRequest {
  readonly messages: ReadonlyArray<{ readonly role: "user" | "assistant"; readonly content: Readonly<Record<string, unknown>> }>;
  readonly maxTokens: number;
  readonly [key: string]: unknown;
}

/** The client's sampled message. */
export interface SampleResult {
  readonly role: "user" | "assistant";
  readonly content: Readonly<Record<string, unknown>>;
  readonly model: string;
  readonly stopReason?: string;
  readonly [key: string]: unknown;
}

/**
 * What a served MCP call can reach of the client that made it. Set by the
 * serving layer on the call's context (`child({ channel })`); inherited by
 * that context's children; ended when the owning context is released.
 */
export interface ClientChannel {
  /** Reports progress on the call (`notifications/progress`, coalesced); nothing when the client sent no progress token. */
  progress(done: number, total: number | undefined, message: string | undefined): void;
  /** Sends a log message to the client (`notifications/message`) unless its log level filters it out. */
  log(level: LogLevel, data: unknown): void;
  /** Asks the client's user a question (`elicitation/create`) and waits for the answer. */
  elicit(request: ElicitRequest): Promise<ElicitResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`) and waits for it. */
  sample(request: SampleRequest): Promise<SampleResult>;
  /** The call ended: drop pending notifications. */
  end(): void;
}
