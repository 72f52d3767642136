/**
 * @module wire/shell-quote
 * The one POSIX shell quoting rule, for command lines this package prints or
 * hands to a shell (the Claude hook command, `agentkit serve`'s lines).
 */

/**
 * Quote `s` as one POSIX shell word: left as it is when it holds only
 * characters no shell treats specially, otherwise single-quoted with each
 * `'` written as `'\''`. The empty string becomes `''`.
 */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Words quoted and joined with spaces: a command line a person can paste. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
