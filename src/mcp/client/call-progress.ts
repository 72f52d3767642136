/**
 * @module mcp/client/call-progress
 * What `onProgress` receives: the shape shared by `MCPClient.callTool()` and
 * `McpTask` (kept apart so neither file imports the other for it).
 */
import type { McpTaskStatus } from "./task-codec.js";

/** One progress notification of a tool call (`CallToolOptions.onProgress`). */
export interface CallProgress {
  /** How far the call is; increases with each notification. */
  readonly progress: number;
  /** The total `progress` will reach, when the server knows it. */
  readonly total?: number;
  /** The server's words for this step, when it sends any. */
  readonly message?: string;
  /** Set when the call became a task (2026-07-28 tasks extension): its id and the status this report is about. */
  readonly task?: { readonly id: string; readonly status: McpTaskStatus };
}
