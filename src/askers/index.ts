/**
 * @module askers
 * Entry point `arc-agentkit/askers`: the shipped `Asker`s that put a person in
 * the loop. Policy: every export is listed by name (`export type` for types);
 * importing this entry never loads an optional peer.
 */
export { TerminalAsker } from "./terminal-asker.js";
export type { TerminalAskerOptions } from "./terminal-asker.js";
export { NoTerminalError } from "./no-terminal.error.js";
export { PROMPTS_INSTALL_LINE } from "./prompt-library.js";
export { ApprovalInbox } from "./inbox/approval-inbox.js";
export type { ApprovalInboxOptions, InboxAskerFor } from "./inbox/approval-inbox.js";
export { InboxAsker, inboxAsker } from "./inbox/inbox-asker.js";
export type { InboxAskerOptions } from "./inbox/inbox-asker.js";
export { MemoryInboxStore, MEMORY_STORE_LIMIT } from "./inbox/inbox-store.js";
export type { InboxStore, InboxEvent, InboxAnswer, QuestionStatus, SettleResult, Settlement, StoredDecision, StoredQuestion } from "./inbox/inbox-store.js";
export { InboxError } from "./inbox/inbox.error.js";
export type { InboxErrorCode } from "./inbox/inbox.error.js";
