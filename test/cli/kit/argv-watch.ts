/**
 * @module test/cli/kit/argv-watch
 * Watching the argv of every process a hermetic CLI run starts: every ~20 ms,
 * the processes whose environment has `HOME=<the sandbox's home>` (the CLI
 * and whatever it spawned with its env) plus all their descendants by parent
 * pid, and the `/proc/<pid>/cmdline` of each — what any local user can read.
 */
import { readFileSync, readdirSync } from "node:fs";

/** One process seen, with every distinct argv it had while watched. */
export interface SeenProcess {
  readonly pid: number;
  readonly argvs: Set<string>;
  /** Its environment as last read (`NAME=value` entries). */
  environ: string[];
}

function read(path: string): string | null {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return null; // gone, or not ours to read
  }
}

function parentOf(pid: number): number | null {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return null;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

/** Samples `/proc` until `stop()`. `const watch = ArgvWatch.start(h.home)`. */
export class ArgvWatch {
  /** Every process attributed to the run, by pid. */
  readonly seen = new Map<number, SeenProcess>();
  /** Number of samples taken. */
  samples = 0;
  private readonly home: string;
  private readonly notOurs = new Set<number>();
  private readonly timer: NodeJS.Timeout;

  private constructor(home: string, everyMs: number) {
    this.home = `HOME=${home}`;
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  static start(home: string, everyMs = 20): ArgvWatch {
    return new ArgvWatch(home, everyMs);
  }

  /** Stop sampling (one last sample first) and return what was seen. */
  stop(): Map<number, SeenProcess> {
    clearInterval(this.timer);
    this.sample();
    return this.seen;
  }

  /** Every argv seen, each as its words joined by spaces. */
  argvs(): string[] {
    return [...this.seen.values()].flatMap((p) => [...p.argvs]);
  }

  private sample(): void {
    this.samples++;
    const parents = new Map<number, number>();
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (pid === process.pid) continue;
      const ppid = parentOf(pid);
      if (ppid !== null) parents.set(pid, ppid);
    }
    const ours = new Set<number>();
    for (const [pid, ppid] of parents) if (this.isRoot(pid, ppid)) ours.add(pid);
    // Descendants by parent pid, to a fixed point (a child that reset HOME still counts).
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, ppid] of parents) {
        if (ours.has(pid) || !ours.has(ppid)) continue;
        ours.add(pid);
        grew = true;
      }
    }
    for (const pid of ours) this.record(pid);
  }

  private isRoot(pid: number, ppid: number): boolean {
    if (this.seen.has(pid)) return true;
    if (this.notOurs.has(pid)) return false;
    const environ = read(`/proc/${pid}/environ`);
    if (environ === null) return false;
    const mine = environ.split("\0").includes(this.home);
    // A child of this process may be between fork and exec (still our env): ask again next time.
    if (!mine && ppid !== process.pid) this.notOurs.add(pid);
    return mine;
  }

  private record(pid: number): void {
    const cmdline = read(`/proc/${pid}/cmdline`);
    if (cmdline === null || cmdline === "") return; // gone, or a zombie
    let p = this.seen.get(pid);
    if (!p) {
      p = { pid, argvs: new Set(), environ: [] };
      this.seen.set(pid, p);
    }
    const environ = read(`/proc/${pid}/environ`);
    if (environ) p.environ = environ.split("\0").filter(Boolean);
    p.argvs.add(cmdline.split("\0").filter(Boolean).join(" "));
  }
}
