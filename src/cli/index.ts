/** @module arc-agentkit/cli — the Claude Code and Codex CLI cognitions (filled in by the CLI issue). */
export {};
