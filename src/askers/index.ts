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
