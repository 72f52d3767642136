/**
 * @module askers/call-view
 * What a person is shown about a tool call besides its JSON, as plain data
 * (no HTML, no I/O): the tool's declarations bounded for display, and the
 * call itself read by its shape — an edit (`old_string`/`new_string`) as a
 * line diff, a write (`content` for a file) as the new file's lines, a
 * command (`command`, `cwd`, `timeout`) as a command line. Every string is
 * made visible (`visible`, the terminal's escaping: controls, C1 and bidi
 * characters escaped) and bounded here, so a viewer only has to escape markup.
 */
import type { ToolFacts } from "../contracts/elicitation.js";
import { clipMiddle, visible } from "../util/visible-text.js";

/** The most characters of a tool's description shown. */
export const MAX_DESCRIPTION_CHARS = 2000;
/** The most caps (and annotations) shown, each cut to 60 characters. */
export const MAX_FACT_ITEMS = 20;
/** The most lines a diff or a file's content shows; the rest is counted. */
export const MAX_VIEW_LINES = 400;
/** Past this many lines on a side, a diff is not computed: the old lines are shown removed and the new added. */
const MAX_DIFF_SIDE = 1000;

/**
 * `facts` bounded for display and storage: the description cut to
 * `MAX_DESCRIPTION_CHARS`, at most `MAX_FACT_ITEMS` caps and annotations
 * (annotations only with a boolean, number or short string value), or
 * `undefined` when nothing is left. Text is kept as given (escaping is the
 * viewer's, with `visible`). Never throws.
 */
export function boundedToolFacts(facts: ToolFacts | undefined): ToolFacts | undefined {
  if (facts === null || typeof facts !== "object") return undefined;
  const out: Record<string, unknown> = {};
  if (typeof facts.description === "string" && facts.description.trim() !== "") {
    const d = facts.description.trim();
    out.description = d.length > MAX_DESCRIPTION_CHARS ? `${d.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : d;
  }
  if (Array.isArray(facts.caps)) {
    const caps = facts.caps
      .filter((c) => typeof c === "string" && c !== "")
      .slice(0, MAX_FACT_ITEMS)
      .map((c) => clipMiddle(c, 60));
    if (caps.length > 0) out.caps = caps;
  }
  if (typeof facts.sideEffecting === "boolean") out.sideEffecting = facts.sideEffecting;
  if (typeof facts.requiresApproval === "boolean") out.requiresApproval = facts.requiresApproval;
  if (facts.annotations && typeof facts.annotations === "object") {
    const kept = Object.entries(facts.annotations)
      .filter(([, v]) => typeof v === "boolean" || typeof v === "number" || (typeof v === "string" && v.length <= 200))
      .slice(0, MAX_FACT_ITEMS)
      .map(([k, v]) => [clipMiddle(k, 60), v] as const);
    if (kept.length > 0) out.annotations = Object.fromEntries(kept);
  }
  return Object.keys(out).length > 0 ? (out as ToolFacts) : undefined;
}

/** The declarations worth a label, in words (`side-effecting`, `requires approval`, `readOnlyHint: true`), made visible. */
export function factLabels(facts: ToolFacts): string[] {
  const labels: string[] = [];
  if (facts.sideEffecting !== undefined) labels.push(facts.sideEffecting ? "side-effecting" : "read-only");
  if (facts.requiresApproval) labels.push("requires approval");
  for (const [k, v] of Object.entries(facts.annotations ?? {})) labels.push(visible(`${k}: ${String(v)}`));
  return labels;
}

/** One line of a diff: kept (` `), removed (`-`), added (`+`) or a heading between edits (`@`), its text made visible. */
export interface DiffLine {
  readonly op: " " | "-" | "+" | "@";
  readonly text: string;
}

/** A call read by its shape. */
export type CallView =
  | { readonly kind: "command"; readonly command: string; readonly cwd?: string; readonly timeout?: string; readonly description?: string }
  | { readonly kind: "edit"; readonly path: string; readonly lines: readonly DiffLine[]; readonly more: number }
  | { readonly kind: "write"; readonly path: string; readonly lines: readonly DiffLine[]; readonly more: number };

const str = (v: unknown): v is string => typeof v === "string";
const shown = (text: string): string => visible(text, { newlines: true });

/** The file a call names (`file_path`, `path`, `filename`), made visible, or `(no file named)`. */
function pathOf(args: Record<string, unknown>): string {
  const p = [args.file_path, args.path, args.filename].find(str);
  return p === undefined ? "(no file named)" : clipMiddle(visible(p), 300);
}

function bounded(lines: DiffLine[]): { lines: DiffLine[]; more: number } {
  return { lines: lines.slice(0, MAX_VIEW_LINES), more: Math.max(0, lines.length - MAX_VIEW_LINES) };
}

/**
 * The view of a call's arguments by their shape, or `undefined` for any
 * other shape (then the JSON is the view): `old_string` + `new_string`
 * strings are an edit (a line diff); `content` with a file path, a write
 * (every line added); a `command` string, a command (with `cwd`/`workdir`
 * and `timeout` when given). Bounded (`MAX_VIEW_LINES`); never throws.
 */
export function callView(args: Record<string, unknown>): CallView | undefined {
  const edits = multiEdit(args.edits);
  if (edits) return { kind: "edit", path: pathOf(args), ...bounded(edits) };
  if (str(args.old_string) && str(args.new_string)) {
    return {
      kind: "edit",
      path: pathOf(args),
      ...bounded(lineDiff(shown(args.old_string).split("\n"), shown(args.new_string).split("\n"))),
    };
  }
  if (str(args.content) && [args.file_path, args.path, args.filename].some(str)) {
    return {
      kind: "write",
      path: pathOf(args),
      ...bounded(
        shown(args.content)
          .split("\n")
          .map((text) => ({ op: "+" as const, text })),
      ),
    };
  }
  if (str(args.command)) {
    const cwd = [args.cwd, args.workdir].find(str);
    const timeout = typeof args.timeout === "number" || str(args.timeout) ? String(args.timeout) : undefined;
    return {
      kind: "command",
      command: shown(args.command),
      ...(cwd === undefined ? {} : { cwd: visible(cwd) }),
      ...(timeout === undefined ? {} : { timeout: visible(timeout) }),
      ...(str(args.description) ? { description: visible(args.description) } : {}),
    };
  }
  return undefined;
}

/**
 * A MultiEdit-style `edits` list (`[{ old_string, new_string }, ...]`, at most 100) as one diff, each edit under an `@`
 * heading; else `undefined`.
 */
function multiEdit(edits: unknown): DiffLine[] | undefined {
  if (!Array.isArray(edits) || edits.length === 0 || edits.length > 100) return undefined;
  const pairs = edits as Array<{ old_string?: unknown; new_string?: unknown }>;
  if (!pairs.every((e) => e !== null && typeof e === "object" && str(e.old_string) && str(e.new_string))) return undefined;
  return pairs.flatMap((e, i) => [
    { op: "@" as const, text: `edit ${i + 1} of ${pairs.length}` },
    ...lineDiff(shown(e.old_string as string).split("\n"), shown(e.new_string as string).split("\n")),
  ]);
}

/**
 * The lines of `before` turned into `after`: a longest-common-subsequence
 * diff (kept lines, then removed before added at each change). Past
 * `MAX_DIFF_SIDE` lines on a side, every old line is removed and every new
 * one added (still exact, just not minimal).
 */
export function lineDiff(before: readonly string[], after: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB--;
    endA--;
  }
  const head = before.slice(0, start).map((text) => ({ op: " " as const, text }));
  const tail = before.slice(endB).map((text) => ({ op: " " as const, text }));
  const b = before.slice(start, endB);
  const a = after.slice(start, endA);
  if (b.length > MAX_DIFF_SIDE || a.length > MAX_DIFF_SIDE) {
    return [...head, ...b.map((text) => ({ op: "-" as const, text })), ...a.map((text) => ({ op: "+" as const, text })), ...tail];
  }
  return [...head, ...lcsDiff(b, a), ...tail];
}

function lcsDiff(b: readonly string[], a: readonly string[]): DiffLine[] {
  const n = b.length;
  const m = a.length;
  // lcs[i][j]: the longest common subsequence of b[i..] and a[j..], as one flat array
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        b[i] === a[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && b[i] === a[j]) {
      out.push({ op: " ", text: b[i++]! });
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!)) out.push({ op: "-", text: b[i++]! });
    else out.push({ op: "+", text: a[j++]! });
  }
  return out;
}
