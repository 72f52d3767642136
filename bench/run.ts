/**
 * @module bench/run
 * The benchmark runner (`npm run bench [-- --quick] [-- --only=serving,client]`):
 * runs the suites one after another, prints each table as it finishes, and —
 * for a run of every suite — writes BENCHMARKS.md at the project root with the
 * numbers, the command, the machine, and a verdict per goal.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { BenchConfig, Suite } from "./lib/config.js";
import { machine } from "./lib/machine.js";
import { markdownSection, textSection, type Section } from "./lib/report.js";
import { approvals } from "./suites/approvals.bench.js";
import { hosted } from "./suites/hosted.bench.js";
import { inbox } from "./suites/inbox.bench.js";
import { client } from "./suites/client.bench.js";
import { lists } from "./suites/lists.bench.js";
import { memory } from "./suites/memory.bench.js";
import { models } from "./suites/models.bench.js";
import { otelSuite } from "./suites/otel.bench.js";
import { serving } from "./suites/serving.bench.js";
import { startup } from "./suites/startup.bench.js";

const SUITES: readonly Suite[] = [serving, hosted, client, lists, startup, approvals, memory, models, inbox, otelSuite];

function parseArgs(argv: readonly string[]): { quick: boolean; only: Set<string> | null; out: string | null } {
  let quick = false;
  let only: Set<string> | null = null;
  let out: string | null = null;
  for (const a of argv) {
    if (a === "--quick") quick = true;
    else if (a.startsWith("--only=")) only = new Set(a.slice(7).split(",").filter(Boolean));
    else if (a.startsWith("--out=")) out = a.slice(6);
    else throw new Error(`bench: unknown argument ${JSON.stringify(a)}; use --quick, --only=<${SUITES.map((s) => s.id).join(",")}>, --out=<file>`);
  }
  if (only) {
    const unknown = [...only].filter((id) => !SUITES.some((s) => s.id === id));
    if (unknown.length) throw new Error(`bench: unknown suite(s) ${unknown.join(", ")}; known: ${SUITES.map((s) => s.id).join(", ")}`);
  }
  return { quick, only, out };
}

/**
 * Why a goal is missed, for the misses understood when this runner was written
 * (shown next to a missed goal only). Keyed by a substring of the goal text.
 */
const KNOWN_CAUSES: ReadonlyArray<readonly [string, string]> = [
  [
    "worker processes",
    "PostgreSQL before version 19 wakes every backend that LISTENs in the database on each committing NOTIFY, whatever the channel (async.c: \"no central knowledge of which backend listens on which channel\"). A question costs two notifying commits (the ask, for the page; the answer, for its worker), so with 128 workers listening each question wakes ~256 backends, and on a shared 2-core VM that, not the workers' own work, is what grows. Per-process channels already keep the other workers' Node processes asleep (they hear nothing not theirs); what would remove the server-side cost is fewer listening backends — a worker that LISTENs only while it has a question pending, or one listener per host — or PostgreSQL 19's per-channel wake-up",
  ],
  [
    "throughput with",
    "with 16 clients on this 2-core machine the clients and the server share the CPU, so server CPU per call is throughput; read the \"server CPU vs SDK\" column, which moves less than wall time. Since the served endpoint answers through agentkit's own node:http transport (no web Request/ReadableStream/Response bridge per request), its server CPU per call measured 0.69x the raw SDK server's in two runs; before, with the SDK's transport, 0.99x and 1.09x (the served path's own checks, validation and per-call context on top of the same bridge). A run below 1.00 with server CPU below 1.00 is the shared VM's round-to-round spread (0.7–1.5 per round)",
  ],
  [
    "p50 within 1.10x",
    "the served path does more per call than the raw SDK handler — Host/Origin and constant-time bearer checks, argument validation, a child RunContext, the result flattened to text — about 0.4 ms more server CPU per call in a profile before commit 6a4cfa2 (which removed part of it). At a ~1.4 ms round trip that is close to the 10 % line, and the per-round ratio swings by ±0.1–0.2 on this shared VM: five full runs gave 1.09, 1.06, 1.11, 1.02 and 1.18",
  ],
  [
    "no heap growth per call in agentkit's server",
    "if the last column of the memory table is above 0, something on the served path joins the run's long-lived signal with `AbortSignal.any` again: Node 20.20.2 keeps every such composite registered on the long-lived signal (nodejs/node#55351, #64476; before commit 6a4cfa2 `RunContext.child()` left two per call, 70–210 B of heap per call over four runs). If it is 0, the heap figure is within this machine's noise floor of about ±100 B/call over 10,000 calls — rerun",
  ],
  [
    "client grows no more per call",
    "each HTTP request gets its own `AbortController`, which follows the transport's long-lived signal through an entry in a set (one listener on that signal in all) removed when the response body ends; an SSE body is watched through the `pipeTo` its `pipeThrough` stands for. Growth above the raw client means a request's entry or controller is kept past its end",
  ],
  [
    "one agent turn's p50",
    "agentkit's own work per turn was timed phase by phase inside a turn (medians of 2,500 turns): about 14 µs before the SDK call (RunContext, the loop, the request body) and 12 µs after the stream ends (the turn, usage, the frozen result), against ~13 µs and ~2 µs for the bare call, which makes its own AbortController too — about 2–3 % of a ~1.1 ms turn. The tool list is converted once per list, and the loop makes no object spreads on its path. The rest is this VM: ratios from one process to the next spread by ±4 %, which is why the section takes the median over several processes; a single run can still land either side of 1.05"
  ],
  [
    "client overhead over",
    "client CPU per call was profiled at parity with the raw SDK once the per-call `AbortController` became a `CallSignal` and SSE bodies stopped being re-wrapped (stdio: 42–46 µs vs 38–46 µs; HTTP: the extra `ReadableStream` + `Response` per call, ~40 µs, removed). What is left is scheduling: our stdio server leads its own process group (`detached`, i.e. `setsid`, so closing ends the whole tree), which on Linux with autogroup also puts it in its own scheduling group (measured 0–5 % on p50 in separate runs), and per-round p50 ratios on a ~0.1 ms stdio round trip spread 0.7–1.2 on this shared VM",
  ],
];

function document(sections: readonly Section[], args: ReturnType<typeof parseArgs>, seconds: number, startLoad: string): string {
  const m = machine();
  // The command as run, so a partial report (--only) never reads as a full one.
  const flags = [...(args.quick ? ["--quick"] : []), ...(args.only ? [`--only=${[...args.only].join(",")}`] : [])];
  const command = `npm run bench${flags.length ? ` -- ${flags.join(" ")}` : ""}`;
  const why = (goal: string): string => KNOWN_CAUSES.find(([k]) => goal.includes(k))?.[1] ?? "not analysed yet";
  const summary = sections.flatMap((s) =>
    s.goals.map((g) => `| ${s.title.replace(/\|/g, "\\|")} | ${g.goal} | ${g.measured} | ${g.met ? "met" : `**missed** — why: ${why(g.goal)}`} |`),
  );
  return [
    "# Benchmarks",
    "",
    `Generated by \`${command}\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC in ${Math.round(seconds)} s` +
      `${args.quick ? " — a **quick** run (about a fifth of the counts): smoke numbers, not for decisions" : ""}.`,
    "",
    `- Machine: ${m.line}; load average at start ${startLoad}, at end ${m.load}.`,
    `- Versions: ${m.versions}.`,
    "- Goals are ratios measured in one run on one machine; absolute times on this shared 2-vCPU VM vary by up to 1.5x between runs, so read the ratios.",
    "- Every number below is from the run named above; `npm run bench` rewrites this file (the `--only` form prints without writing).",
    "",
    "## Goals",
    "",
    "| benchmark | goal | measured | verdict |",
    "|---|---|---|---|",
    ...summary,
    "",
    ...sections.map((s) => `${markdownSection(s)}\n`),
  ].join("\n");
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const cfg: BenchConfig = { quick: args.quick, log: (line) => process.stderr.write(`  [bench] ${line}\n`) };
  const startLoad = machine().load;
  const t0 = performance.now();
  const sections: Section[] = [];
  const m = machine();
  process.stdout.write(`arc-agentkit benchmarks${args.quick ? " (quick)" : ""} — ${m.line}\n${m.versions}\n\n`);
  for (const suite of SUITES) {
    if (args.only && !args.only.has(suite.id)) continue;
    const s0 = performance.now();
    cfg.log(`${suite.title}...`);
    const section = await suite.run(cfg);
    section.seconds = (performance.now() - s0) / 1000;
    sections.push(section);
    process.stdout.write(`${textSection(section)}\n  (${section.seconds.toFixed(0)} s)\n\n`);
  }
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(`total ${seconds.toFixed(0)} s\n`);
  const target = args.out ?? (args.only ? null : fileURLToPath(new URL("../../BENCHMARKS.md", import.meta.url)));
  if (target) {
    writeFileSync(target, document(sections, args, seconds, startLoad));
    process.stdout.write(`wrote ${target}\n`);
  }
  const missed = sections.flatMap((s) => s.goals).filter((g) => !g.met);
  if (missed.length) process.stdout.write(`${missed.length} goal(s) missed on this run; see the table above (a benchmark reports, it does not fail).\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
