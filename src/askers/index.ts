/**
 * @module askers
 * Entry point `arc-agentkit/askers`: the shipped `Asker`s that put a person in
 * the loop. Policy: every export is listed by name (`export type` for types);
 * importing this entry never loads an optional peer. The stores of calls that
 * wait (`CallRecord*`) and of durable runs (`Run*`) are typed here, beside the
 * stores that implement them; the errors are exported from `arc-agentkit`.
 */
export { TerminalAsker } from "./terminal-asker.js";
export type { TerminalAskerOptions } from "./terminal-asker.js";
export { ApprovalInbox } from "./inbox/approval-inbox.js";
export type { ApprovalInboxOptions, InboxAskerFor } from "./inbox/approval-inbox.js";
export { inboxAsker } from "./inbox/inbox-asker.js";
export type { InboxAsker, InboxAskerOptions } from "./inbox/inbox-asker.js";
export { MemoryInboxStore, MEMORY_PENDING_LIMIT } from "./inbox/inbox-store.js";
export type {
  InboxStore,
  InboxEvent,
  InboxAnswer,
  MemoryInboxStoreOptions,
  QuestionStatus,
  SettleResult,
  Settlement,
  StoredDecision,
  StoredQuestion,
} from "./inbox/inbox-store.js";
export type {
  CallAnswer,
  CallChange,
  CallError,
  CallQuestion,
  CallRecord,
  CallRecordEvent,
  CallRecordStore,
  CallStatus,
  CallUpdate,
} from "../contracts/call-record.js";
export type { RunClaim, RunHead, RunStatus, RunStep, RunStepKind, RunStore, RunSummary } from "../contracts/run-record.js";
export { postgresInboxStore, migrateInboxStore } from "./inbox/postgres-store.js";
export type { PostgresInboxStore, InboxStoreRole, InboxWakeups, PostgresInboxStoreOptions } from "./inbox/postgres-store.js";
export type { PgPool, PgClient, PgResult } from "./inbox/pg-peer.js";
export { pgliteInboxStore } from "./inbox/pglite-store.js";
export type { PgliteInboxStoreOptions } from "./inbox/pglite-store.js";
