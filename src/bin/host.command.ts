/**
 * @module bin/host.command
 * `agentkit host <module-file> --port N --resource URL --issuer URL`: serve a
 * built `@McpServer` module off loopback through `mcpRouter` on an express
 * app, behind OAuth as a resource server (JWT access tokens checked by
 * `jwtVerifier`), statelessly — so any number of these processes behind one
 * load balancer serve one URL. SIGTERM (or SIGINT) drains: new requests are
 * refused with 503, the calls in flight finish, then the process exits 0.
 */
import { readFileSync, statSync } from "node:fs";
import type { RequestListener } from "node:http";
import { listenHosted, type HostedListener } from "../listener/hosted-listener.js";
import { resolve } from "node:path";
import {
  flag,
  listOption,
  parseCommandLine,
  type CommandLine,
  parseMilliseconds,
  strayArgument,
  stringOption,
  type OptionTable,
} from "./args.js";
import { UsageError } from "./cli.error.js";
import { stopSignal } from "./stop-signal.js";
import type { FailureContext } from "./failure-line.js";
import { HOST_HELP } from "./help.js";
import { approverStore } from "./store-args.js";
import type { ApproverStore } from "./approver.js";
import type { CallRecordStore } from "../contracts/call-record.js";
import type { DevTokenFiles, McpRouterTarget } from "../express/index.js";
import { devRefusal, isLoopbackHost } from "../express/dev-refusal.js";

const OPTIONS: OptionTable = {
  port: { type: "string" },
  bind: { type: "string" },
  resource: { type: "string" },
  issuer: { type: "string" },
  "jwks-uri": { type: "string" },
  "allowed-host": { type: "string", multiple: true },
  "fleet-key-env": { type: "string" },
  "fleet-key-file": { type: "string" },
  export: { type: "string" },
  "timeout-ms": { type: "string" },
  "drain-ms": { type: "string" },
  json: { type: "boolean" },
  store: { type: "string" },
  "store-env": { type: "string" },
  "inbox-store": { type: "string" },
  dev: { type: "boolean" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** The variable read for the fleet key when neither --fleet-key-env nor --fleet-key-file is given. */
export const FLEET_KEY_ENV = "AGENTKIT_FLEET_KEY";

/** What `host` asked for, checked before anything is loaded. */
interface HostRequest {
  readonly file: string;
  readonly exportName?: string;
  readonly port: number;
  readonly bind: string;
  /** `--resource`; with `--dev`, `http://<bind>/mcp` (the bound port is added once listening). */
  readonly resource: URL;
  /** The accepted token audiences: `--resource` as written and as a URL (`https://a.example` is also `https://a.example/`). */
  readonly audience: string[];
  /** `--issuer`; unset with `--dev` (the router issues its own tokens). */
  readonly issuer?: string;
  /** `--dev`: development mode, loopback only, tokens issued in process (see `mcpRouter({ dev: true })`). */
  readonly dev: boolean;
  readonly jwksUri?: string;
  readonly allowedHosts?: string[];
  /** The key, and where it came from (for the health line: never the key itself). */
  readonly fleetKey?: { readonly key: string; readonly from: string };
  readonly timeoutMs?: number;
  readonly drainMs: number;
  readonly json: boolean;
  /**
   * Where the module's call records live — its questions' rounds and MCP tasks (`--store <url>` / `--store-env VAR`, a
   * fleet's shared PostgreSQL; or `--inbox-store <dir>`); unset: this process's memory.
   */
  readonly store?: ApproverStore;
}

function urlOption(value: string | undefined, name: string, example: string): URL {
  if (value === undefined)
    throw new UsageError(`agentkit host: --${name} is required, e.g. --${name} ${example} (see agentkit host --help)`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`agentkit host: --${name} must be an absolute http(s) URL, e.g. --${name} ${example}; got '${value}'`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new UsageError(`agentkit host: --${name} must be an http(s) URL, e.g. --${name} ${example}; got '${value}'`);
  return url;
}

function portOption(value: string | undefined): number {
  if (value === undefined)
    throw new UsageError("agentkit host: --port is required (0 picks a free one; the --json line says which), e.g. --port 8080");
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535)
    throw new UsageError(`agentkit host: --port must be a whole number from 0 to 65535, got '${value}'`);
  return n;
}

/**
 * The fleet key: from `--fleet-key-file` (a regular file no one else can read:
 * mode 0600 or 0400), from the variable `--fleet-key-env` names, or from
 * AGENTKIT_FLEET_KEY. Never from argv (any local user can read a command line).
 * The variable is deleted from `env` once read (before the module is
 * imported), so no subprocess of the hosted module — a stdio remote, a
 * tool's child — inherits the key.
 */
export function readFleetKey(
  file: string | undefined,
  envName: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { key: string; from: string } | undefined {
  if (file !== undefined && envName !== undefined)
    throw new UsageError("agentkit host: give the fleet key one way: --fleet-key-file PATH or --fleet-key-env VAR, not both");
  let key: string | undefined;
  let from: string;
  if (file !== undefined) {
    const path = resolve(file);
    let info;
    try {
      info = statSync(path);
    } catch (err) {
      throw new UsageError(
        `agentkit host: --fleet-key-file: cannot read '${file}' ` +
          `(${(err as NodeJS.ErrnoException).code ?? "unreadable"}); write the shared key there with mode 0600`,
        { cause: err },
      );
    }
    if (!info.isFile()) throw new UsageError(`agentkit host: --fleet-key-file: '${file}' is not a regular file`);
    if ((info.mode & 0o077) !== 0) {
      throw new UsageError(
        `agentkit host: --fleet-key-file: '${file}' is readable by others (mode ` +
          `${(info.mode & 0o777).toString(8)}); it holds a secret: chmod 600 '${file}'`,
      );
    }
    key = readFileSync(path, "utf8").trim();
    from = `file ${path}`;
  } else {
    const name = envName ?? FLEET_KEY_ENV;
    if (envName !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(envName))
      throw new UsageError(
        `agentkit host: --fleet-key-env must name an environment variable (e.g. --fleet-key-env ${FLEET_KEY_ENV}), got '${envName}'`,
      );
    key = env[name];
    // Read once, then gone: the module's subprocesses and stdio remotes inherit this environment.
    delete env[name];
    if (key === undefined || key === "") {
      if (envName !== undefined)
        throw new UsageError(
          `agentkit host: --fleet-key-env ${name}: the variable ${name} is ` +
            `${key === undefined ? "not set" : "empty"}; set it to the key every process of the fleet shares (32 ` +
            `bytes or more)`,
        );
      return undefined;
    }
    key = key.trim();
    from = `env ${name}`;
  }
  if (Buffer.byteLength(key, "utf8") < 32)
    throw new UsageError(`agentkit host: the fleet key (${from}) is shorter than 32 bytes; make one with: openssl rand -base64 32`);
  return { key, from };
}

function request(argv: readonly string[]): HostRequest | null {
  const line = parseCommandLine("host", argv, OPTIONS);
  if (flag(line, "help")) return null;
  if (line.rest !== null)
    throw new UsageError(
      "agentkit host: unexpected '--'; host takes one module file: agentkit host <module-file> --port N --resource URL --issuer URL",
    );
  const [file, ...extra] = line.positionals;
  if (!file)
    throw new UsageError(
      "agentkit host: name the built module file to host: agentkit host <module-file> --port N --resource URL --issuer URL (see agentkit host --help)",
    );
  if (extra.length) throw strayArgument("host", 2, "host takes one module file (pick a class with --export Name)");
  const port = portOption(stringOption(line, "port"));
  if (flag(line, "dev")) return devRequest(line, file, port);
  const resource = urlOption(stringOption(line, "resource"), "resource", "https://tools.example.com/mcp");
  const issuer = stringOption(line, "issuer");
  urlOption(issuer, "issuer", "https://auth.example.com");
  const jwksUri = stringOption(line, "jwks-uri");
  if (jwksUri !== undefined) urlOption(jwksUri, "jwks-uri", "https://auth.example.com/jwks");
  const bind = stringOption(line, "bind") ?? "127.0.0.1";
  return {
    file,
    port,
    bind,
    resource,
    audience: [...new Set([stringOption(line, "resource")!, resource.href])],
    issuer: issuer!,
    dev: false,
    ...(jwksUri !== undefined ? { jwksUri } : {}),
    ...common(line),
  };
}

/** What every `host` request has, from `line`. */
function common(
  line: CommandLine,
): Pick<HostRequest, "drainMs" | "json" | "exportName" | "allowedHosts" | "fleetKey" | "timeoutMs" | "store"> {
  const timeoutMs = parseMilliseconds("host", "timeout-ms", stringOption(line, "timeout-ms"));
  const drainMs = parseMilliseconds("host", "drain-ms", stringOption(line, "drain-ms")) ?? 30_000;
  const allowedHosts = listOption(line, "allowed-host");
  const fleetKey = readFleetKey(stringOption(line, "fleet-key-file"), stringOption(line, "fleet-key-env"));
  const exportName = stringOption(line, "export");
  const store = approverStore("host", line, undefined);
  return {
    drainMs,
    json: flag(line, "json"),
    ...(exportName !== undefined ? { exportName } : {}),
    ...(allowedHosts.length ? { allowedHosts } : {}),
    ...(fleetKey ? { fleetKey } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(store ? { store } : {}),
  };
}

/**
 * `agentkit host --dev`: no --resource, --issuer or --jwks-uri (the router
 * is its own issuer and serves `http://<bind>:<port>/mcp`); --bind must be a
 * loopback address; refused under NODE_ENV=production.
 */
function devRequest(line: CommandLine, file: string, port: number): HostRequest {
  const refused = devRefusal("agentkit host", "--dev");
  if (refused) throw new UsageError(refused);
  for (const name of ["resource", "issuer", "jwks-uri"]) {
    if (stringOption(line, name) !== undefined)
      throw new UsageError(
        `agentkit host: --${name} is not taken with --dev: development mode issues its own tokens and serves ` +
          `http://127.0.0.1:<port>/mcp; drop --${name}, or drop --dev to use your authorization server`,
      );
  }
  const bind = stringOption(line, "bind") ?? "127.0.0.1";
  if (!isLoopbackHost(bind.replace(/^\[(.*)\]$/, "$1")))
    throw new UsageError(
      `agentkit host: --dev serves on loopback only (its tokens are for this machine), and --bind ${bind} is not a ` +
        `loopback address; use --bind 127.0.0.1 (the default) or ::1, or drop --dev and give --resource and --issuer`,
    );
  const resource = new URL(`http://${bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind}/mcp`);
  return { file, port, bind, resource, audience: [], dev: true, ...common(line) };
}

/**
 * Requests in flight, and the switch that refuses new ones while draining:
 * an express middleware placed before the router.
 */
class Drain {
  private inFlight = 0;
  private draining = false;
  private idle: (() => void) | undefined;
  served = 0;
  refused = 0;

  readonly middleware = (
    req: { method: string },
    res: { on(e: "close", f: () => void): void; setHeader(n: string, v: string): void; status(n: number): { json(b: unknown): void } },
    next: () => void,
  ): void => {
    if (this.draining) {
      this.refused++;
      res.setHeader("connection", "close");
      res.setHeader("retry-after", "1");
      res.status(503).json({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: "this server is shutting down; retry (another process behind the same URL will answer)" },
      });
      return;
    }
    this.inFlight++;
    res.on("close", () => {
      this.inFlight--;
      this.served++;
      if (this.inFlight === 0) this.idle?.();
    });
    next();
  };

  /** Refuse new requests from now on; resolves once none is in flight, or after `ms` (then `false`). */
  start(ms: number): Promise<boolean> {
    this.draining = true;
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((done) => {
      const timer = setTimeout(() => done(false), ms);
      this.idle = () => {
        clearTimeout(timer);
        done(true);
      };
    });
  }

  get pending(): number {
    return this.inFlight;
  }
}

/** Bind the hosted server, with a command-line reason when the address cannot be bound. */
async function listen(handler: RequestListener, port: number, bind: string): Promise<HostedListener> {
  try {
    return await listenHosted(handler, port, bind);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EADDRINUSE"
        ? `port ${port} on ${bind} is in use; choose another --port`
        : code === "EADDRNOTAVAIL"
          ? `${bind} is not an address of this machine; check --bind`
          : (err as Error).message;
    throw new UsageError(`agentkit host: cannot listen: ${why}`, { cause: err });
  }
}

/**
 * Run `agentkit host` with `argv` (the words after `host`); resolves with
 * the exit code once the server has drained and stopped (0 after a signal).
 *
 * @throws UsageError for a bad command line, a missing file, an unreadable or
 *   group-readable fleet key file; CliError when the module file cannot be
 *   imported; BootstrapError / OptionsError when the module cannot be hosted.
 */
export async function hostCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const req = request(argv);
  if (!req) {
    process.stdout.write(HOST_HELP);
    return 0;
  }
  context.timeoutFlag = "--timeout-ms";
  const stop = stopSignal("host", "the calls in flight");
  try {
    const { importModuleFile, pickModule } = await import("./load-module.js");
    const { path, exports } = await importModuleFile(req.file, process.cwd(), undefined, "host");
    const chosen = pickModule(req.file, path, exports, req.exportName, "host");
    // --dev is one process on this machine: no fleet to warn about (the router's own warning says what it is).
    if (!req.dev && !req.fleetKey)
      process.stderr.write(
        `agentkit host: no fleet key (${FLEET_KEY_ENV} unset): a question a tool asks can be answered on this ` +
          `process only; give every process of a fleet the same key\n`,
      );
    else if (!req.dev && req.store === undefined)
      process.stderr.write(
        "agentkit host: no --store: a question a tool asks and a task are recorded in this process only, so an answer is taken here only; give every process of a fleet the same --store postgres://...\n",
      );
    // The fleet's call records (questions, MCP tasks): one record there, answered once on whichever process the answer reaches.
    const { openStore } = await import("./approver.js");
    const records = req.store ? await openStore(req.store, "worker") : undefined;
    try {
      return await hostModule(req, chosen, records, stop.received);
    } finally {
      await records?.stop();
    }
  } finally {
    stop.dispose();
  }
}

/**
 * Serve `chosen` through `mcpRouter` (its call records in `records`, when given) on an express app until `stopped`,
 * then stop the router.
 */
async function hostModule(
  req: HostRequest,
  chosen: { readonly module: McpRouterTarget; readonly exportName: string },
  records: CallRecordStore | undefined,
  stopped: Promise<NodeJS.Signals>,
): Promise<number> {
  const { mcpRouter, jwtVerifier } = await import("../express/index.js");
  const { hostExpress } = await import("../express/express-peers.js");
  let app: RequestListener | undefined;
  const handler: RequestListener = (q, s) => (app ? app(q, s) : s.writeHead(503, { "retry-after": "1" }).end());
  // --dev binds first: its resource (the tokens' audience) names the bound port, which --port 0 picks.
  let server = req.dev ? await listen(handler, req.port, req.bind) : undefined;
  let served = false;
  try {
    const resource = server ? new URL(`http://${hostOf(server)}:${server.address.port}${req.resource.pathname}`) : req.resource;
    const common = {
      resource,
      ...(req.allowedHosts ? { allowedHosts: req.allowedHosts } : {}),
      ...(req.fleetKey ? { fleetKey: req.fleetKey.key } : {}),
      ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
      ...(records ? { tasks: { store: records } } : {}),
    };
    const router = req.dev
      ? mcpRouter(chosen.module, { ...common, dev: true })
      : mcpRouter(chosen.module, {
          ...common,
          authorizationServers: [req.issuer!],
          verifyAccessToken: jwtVerifier({
            issuer: req.issuer!,
            audience: req.audience,
            ...(req.jwksUri !== undefined ? { jwksUri: req.jwksUri } : {}),
          }),
        });
    try {
      await router.ready;
      const express = hostExpress();
      const hosted = express();
      hosted.disable("x-powered-by");
      // A proxy on this machine (nginx on 127.0.0.1) names the client in X-Forwarded-For: the limit on refused requests
      // counts that client, not the proxy; anyone else's header is ignored.
      hosted.set("trust proxy", "loopback");
      const drain = new Drain();
      hosted.use(drain.middleware);
      hosted.use(resource.pathname.replace(/\/$/, "") || "/", router);
      app = hosted as unknown as RequestListener;
      server ??= await listen(handler, req.port, req.bind);
      served = true;
      return await serve(req, resource, chosen.exportName, server, drain, router, stopped);
    } finally {
      await router.stop();
    }
  } finally {
    if (server && !served) {
      server.cutConnections();
      await server.stopAccepting();
    }
  }
}

/** The bound address as a URL's host (IPv6 in brackets). */
function hostOf(server: HostedListener): string {
  return server.address.family === "IPv6" ? `[${server.address.address}]` : server.address.address;
}

async function serve(
  req: HostRequest,
  resource: URL,
  exportName: string,
  server: HostedListener,
  drain: Drain,
  router: { stop(): Promise<void>; readonly devFiles: DevTokenFiles | undefined },
  stopped: Promise<NodeJS.Signals>,
): Promise<number> {
  const url = `http://${hostOf(server)}:${server.address.port}${resource.pathname}`;
  const dev = router.devFiles;
  const tokens = dev ? `issued by this process (--dev; the token in ${dev.authorization})` : `from ${req.issuer}`;
  const health = {
    event: "listening",
    pid: process.pid,
    module: exportName,
    url,
    resource: resource.href,
    ...(dev ? { dev: { authorization: dev.authorization, mcpConfig: dev.mcpConfig } } : { issuer: req.issuer }),
    fleetKey: req.fleetKey?.from ?? "none (this process only)",
    store: req.store === undefined ? "none (this process only)" : "postgres",
  };
  if (req.json) process.stdout.write(`${JSON.stringify(health)}\n`);
  else
    process.stdout.write(
      `agentkit host: '${exportName}' (pid ${process.pid}) listening on ${url} for ${resource.href}; tokens ` +
        `${tokens}. SIGTERM drains and stops.\n`,
    );
  const signal = await stopped;
  const closed = server.stopAccepting();
  const drained = await drain.start(req.drainMs);
  // Counted before the router's stop ends them (and their requests leave the count).
  const abandoned = drained ? 0 : drain.pending;
  await router.stop();
  server.cutConnections();
  await closed;
  const stoppedLine = { event: "stopped", pid: process.pid, signal, served: drain.served, refused: drain.refused, drained, abandoned };
  if (req.json) process.stdout.write(`${JSON.stringify(stoppedLine)}\n`);
  process.stderr.write(
    `agentkit host: stopped on ${signal} after ${drain.served} ` +
      `request(s)${drained ? "; every call in flight finished" : `; ${abandoned} call(s) still running after --drain-ms ${req.drainMs} were cut`}\n`,
  );
  return 0;
}
