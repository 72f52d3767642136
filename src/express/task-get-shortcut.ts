/**
 * @module express/task-get-shortcut
 * A hosted `tasks/get` answered without the SDK's per-request machinery (a
 * fresh `Server`, its transport, the web `Request`/`Response` bridge): the
 * request a client polls with, many times a task. Only a request the SDK
 * would serve as it is takes this path — classified modern by the SDK's own
 * `classifyInboundRequest` (the router's one classification of the request,
 * handed in), `Content-Type: application/json`, the standard
 * headers present and equal to the body (`MCP-Protocol-Version` 2026-07-28,
 * `Mcp-Method: tasks/get`, `Mcp-Name` the task id, spelled plainly), the
 * tasks extension declared, the task found for the token's principal; its
 * answer is the SDK's own (status, content type, JSON). Everything else
 * (a mismatch, an unknown or another principal's task, a store that fails)
 * goes on to the SDK, which answers it as before.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { AuthInfo, InboundClassificationOutcome } from "@modelcontextprotocol/server";
import { sdkServer } from "../mcp/peers/sdk-server.js";
import { declaresTasksIn, detailedTask, type ServedTasks } from "../mcp/serve/served-tasks.js";
import { servedServerInfo } from "../mcp/serve/served-server.js";
import { callerOfToken } from "./resource-server.js";

const METHOD = "tasks/get";
/** The one revision the shortcut answers (the SDK's first modern one). */
const REVISION = "2026-07-28";
/** An `Mcp-Name` in this form is Base64 the SDK decodes first: left to the SDK. */
const BASE64_SENTINEL = "=?";

/** A `tasks/get` the shortcut may answer: its JSON-RPC id and task id. */
export interface DirectTaskGet {
  readonly id: string | number;
  readonly taskId: string;
  /** The request's `_meta` client capabilities. */
  readonly capabilities: unknown;
}

/**
 * The `tasks/get` of this POST when the SDK would serve it as it is (see the
 * module note), else `undefined` (the SDK's path answers it). `era` is the
 * router's classification of this POST (`requestEra`); nothing here
 * classifies again. Pure.
 */
export function directTaskGet(headers: IncomingHttpHeaders, era: InboundClassificationOutcome): DirectTaskGet | undefined {
  // a modern request (not a rejection): the classifier checked the body is one JSON-RPC request whose version claim is the header's
  if (era.kind !== "modern" || era.messageKind !== "request" || headers["content-type"] !== "application/json") return undefined;
  const { id, method, params } = era.message;
  const taskId = (params as { taskId?: unknown } | undefined)?.taskId;
  if (method !== METHOD || typeof taskId !== "string" || headers["mcp-protocol-version"] !== REVISION || headers["mcp-method"] !== METHOD)
    return undefined;
  if (headers["mcp-name"] !== taskId || taskId.startsWith(BASE64_SENTINEL)) return undefined;
  return { id, taskId, capabilities: params?._meta?.[sdkServer().CLIENT_CAPABILITIES_META_KEY] };
}

/**
 * The JSON text of the SDK's answer to `get` for module `server`, whose token
 * is `auth`: the task, found for the token's principal in `tasks`; or
 * `undefined` when the SDK should answer (the extension not declared, no such
 * task of this principal, the store failed).
 */
export async function answerTaskGet(
  get: DirectTaskGet,
  auth: AuthInfo | undefined,
  server: string,
  tasks: ServedTasks,
): Promise<string | undefined> {
  if (!auth || !declaresTasksIn(get.capabilities)) return undefined;
  const owner = tasks.ownerOf(callerOfToken(auth, server, get.id));
  const record = await tasks.find(get.taskId, owner).catch(() => undefined);
  if (!record) return undefined;
  const result = {
    ...detailedTask(record),
    resultType: "complete",
    _meta: { [sdkServer().SERVER_INFO_META_KEY]: servedServerInfo(server) },
  };
  return JSON.stringify({ result, jsonrpc: "2.0", id: get.id });
}
