/**
 * @module bench/lib/proc-cpu
 * CPU time of other processes, read from `/proc` (Linux): what a suite adds up
 * to show where the work of a run went (a database server and its backends, a
 * fleet of worker processes) in CPU, which a loaded machine does not inflate
 * the way it inflates wall time.
 */
import { readdirSync, readFileSync } from "node:fs";

/** `/proc/<pid>/stat` counts in clock ticks of 10 ms (USER_HZ is 100 on Linux). */
const MS_PER_TICK = 10;

/** The fields of `/proc/<pid>/stat` after the command name (field 3 onwards), or undefined when the process is gone. */
function statOf(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** User + system CPU a process has used so far, in ms (0 when it is gone). */
export function procCpuMs(pid: number): number {
  const f = statOf(pid);
  return f ? (Number(f[11]) + Number(f[12])) * MS_PER_TICK : 0;
}

/** `pid` and its direct children (a PostgreSQL server: the postmaster and its backends). */
export function withChildren(pid: number): number[] {
  const kids = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => statOf(p)?.[1] === String(pid));
  return [pid, ...kids];
}
