/**
 * @module bench/lib/hosted-fleet
 * `agentkit host` processes serving one module file, for the fleet tests
 * and the tasks benchmark: `size` processes (each its own process group,
 * started at once, each waited for until its `--json` "listening" line), with
 * a real local authorization server minting their tokens, and — for a fleet —
 * a real nginx round-robining over them (`X-Upstream` names the process that
 * served a response). One process without nginx is reached on its own port.
 * `close()` ends nginx, then every process (SIGTERM to its group, SIGKILL
 * after 5 s), then the authorization server.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startNginx, type TestNginx } from "./nginx.js";
import { startAuthServer, type TestAuthServer, type TestClient } from "./oauth-server.js";
import { procCpuMs } from "./proc-cpu.js";

/** This checkout's built `agentkit` command. */
function agentkitBin(): string {
  // Compiled to build/bench/lib (the bench) or run from bench/lib (vitest): the checkout is two or three levels up.
  const here = fileURLToPath(new URL(".", import.meta.url));
  const root = here.includes("/build/bench/") ? join(here, "../../..") : join(here, "../..");
  return join(root, "dist/bin/agentkit.js");
}

/** One `agentkit host` process of a fleet. */
export interface FleetHost {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  /** Its own URL (`http://127.0.0.1:<port>/mcp`), past nginx. */
  readonly url: string;
  /** What it printed so far. */
  readonly stdout: () => string;
  readonly stderr: () => string;
}

/** A running fleet. */
export interface HostedFleet extends AsyncDisposable {
  /** Where clients go: nginx's `/mcp`, or the one process's own URL without nginx. The tokens' audience. */
  readonly resource: string;
  readonly hosts: readonly FleetHost[];
  /** nginx in front (absent for one process started with `nginx: false`). */
  readonly nginx: TestNginx | undefined;
  readonly auth: TestAuthServer;
  /** The pid of the fleet process that served a response (nginx's `X-Upstream`); throws for a response with no known upstream. */
  servedBy(headers: Headers): number;
  /** A bearer token for `client` (valid an hour) for this fleet's resource; `subject` defaults to the client id. */
  mint(client: { readonly id: string; readonly scopes?: readonly string[] }, subject?: string): Promise<string>;
  /** User + system CPU (ms) the fleet's processes have used so far. */
  cpuMs(): number;
  close(): Promise<void>;
}

/** What to start. */
export interface HostedFleetOptions {
  /** The module file every process hosts. */
  readonly module: string;
  /** How many processes (default 3). */
  readonly size?: number;
  /** Put nginx in front (default true; false needs `size` 1). */
  readonly nginx?: boolean;
  /** Flags after the common ones, e.g. `["--store", url]` or `["--inbox-store", dir]`. */
  readonly flags?: readonly string[];
  /** Node flags for each process, e.g. `["--expose-gc"]`. */
  readonly nodeArgs?: readonly string[];
  /** Extra environment for each process. */
  readonly env?: Readonly<Record<string, string>>;
  /** The authorization server's registered clients. */
  readonly clients?: readonly TestClient[];
}

/** End a process group: SIGTERM, then SIGKILL after 5 s. */
async function endGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const kill = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // gone already
    }
  };
  kill("SIGTERM");
  const timer = setTimeout(() => kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** Start `agentkit host` on `port`, resolved once it prints its listening line (rejects with its output after 120 s or on exit). */
async function startHost(o: HostedFleetOptions, port: number, resource: string, issuer: string): Promise<FleetHost> {
  const args = [
    ...(o.nodeArgs ?? []),
    agentkitBin(),
    "host",
    o.module,
    "--port",
    String(port),
    "--resource",
    resource,
    "--issuer",
    issuer,
    "--json",
    ...(o.flags ?? []),
  ];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...o.env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  // PGlite's WebAssembly start takes tens of seconds on a loaded 2-core VM.
  const deadline = Date.now() + 120_000;
  while (!stdout.includes('"event":"listening"')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const why = child.exitCode !== null ? `exit ${child.exitCode}` : "not listening within 120 s";
      await endGroup(child);
      throw new Error(`agentkit host on port ${port} did not start (${why}):\nstdout: ${stdout}\nstderr: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, pid: child.pid!, port, url: `http://127.0.0.1:${port}/mcp`, stdout: () => stdout, stderr: () => stderr };
}

/** Start the fleet (see the module note). */
export async function startHostedFleet(o: HostedFleetOptions): Promise<HostedFleet> {
  const size = o.size ?? 3;
  const fronted = o.nginx ?? true;
  if (!fronted && size !== 1) throw new Error(`startHostedFleet: without nginx the fleet is one process, not ${size}`);
  const auth = await startAuthServer({ clients: o.clients ?? [] });
  const [front, ...ports] = await Promise.all([freePort(), ...Array.from({ length: size }, () => freePort())]);
  const resource = `http://127.0.0.1:${fronted ? front : ports[0]}/mcp`;
  const started = await Promise.allSettled(ports.map((port) => startHost(o, port, resource, auth.issuer)));
  const hosts = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  let nginx: TestNginx | undefined;
  const close = async (): Promise<void> => {
    await nginx?.close();
    await Promise.all(hosts.map((h) => endGroup(h.child)));
    await auth.close();
  };
  const failed = started.find((s) => s.status === "rejected");
  try {
    if (failed) throw failed.reason;
    if (fronted) nginx = await startNginx(ports, { port: front! });
  } catch (err) {
    await close();
    throw err;
  }
  return {
    resource,
    hosts,
    nginx,
    auth,
    servedBy(headers) {
      if (!fronted) return hosts[0]!.pid;
      const upstream = headers.get("x-upstream") ?? "";
      const host = hosts.find((h) => upstream === `127.0.0.1:${h.port}`);
      if (!host) throw new Error(`a response with no known upstream (X-Upstream: ${upstream || "none"}; fleet ports ${ports.join(", ")})`);
      return host.pid;
    },
    mint: (client, subject) =>
      auth.mint({
        audience: resource,
        clientId: client.id,
        scopes: client.scopes ?? [],
        expiresInSec: 3600,
        ...(subject !== undefined ? { subject } : {}),
      }),
    cpuMs: () => hosts.reduce((sum, h) => sum + procCpuMs(h.pid), 0),
    close,
    [Symbol.asyncDispose]: close,
  };
}
