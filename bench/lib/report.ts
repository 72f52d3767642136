/**
 * @module bench/lib/report
 * What a suite hands back: sections of tables, goal verdicts and notes,
 * rendered as aligned text for the terminal and as markdown for BENCHMARKS.md.
 */

/** One table: a header row and data rows (cells already formatted). */
export interface Table {
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** A goal from issue 7 and whether this run met it. */
export interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean;
  /** Why, when missed (or a caveat when met). */
  readonly note?: string;
}

/** One benchmark's results. */
export interface Section {
  readonly id: string;
  readonly title: string;
  /** How it was measured (one paragraph). */
  readonly method: string;
  readonly tables: readonly Table[];
  readonly goals: readonly Goal[];
  readonly notes: readonly string[];
  /** Wall-clock seconds the suite took. */
  seconds?: number;
}

function widths(t: Table): number[] {
  return t.head.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? "").length)));
}

/** Aligned plain-text table (first column left, the rest right). */
export function textTable(t: Table): string {
  const w = widths(t);
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join("  ");
  return [line(t.head), w.map((n) => "-".repeat(n)).join("  "), ...t.rows.map(line)].join("\n");
}

/** GitHub markdown table. */
export function markdownTable(t: Table): string {
  const esc = (c: string): string => c.replace(/\|/g, "\\|");
  return [
    `| ${t.head.map(esc).join(" | ")} |`,
    `|${t.head.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...t.rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}

function goalLine(g: Goal): string {
  return `${g.met ? "MET" : "MISSED"} — ${g.goal}: ${g.measured}${g.note ? ` (${g.note})` : ""}`;
}

/** The section for the terminal. */
export function textSection(s: Section): string {
  const parts = [`== ${s.title} ==`, ...s.tables.map(textTable)];
  if (s.goals.length) parts.push(s.goals.map((g) => `  ${goalLine(g)}`).join("\n"));
  if (s.notes.length) parts.push(s.notes.map((n) => `  note: ${n}`).join("\n"));
  return parts.join("\n\n");
}

/** The section for BENCHMARKS.md. */
export function markdownSection(s: Section): string {
  const parts = [`## ${s.title}`, s.method, ...s.tables.map(markdownTable)];
  if (s.goals.length)
    parts.push(s.goals.map((g) => `- **${g.met ? "Met" : "Missed"}** — ${g.goal}: ${g.measured}${g.note ? `. ${g.note}` : ""}`).join("\n"));
  if (s.notes.length) parts.push(s.notes.map((n) => `- ${n}`).join("\n"));
  if (s.seconds !== undefined) parts.push(`_This section took ${s.seconds.toFixed(0)} s._`);
  return parts.join("\n\n");
}
