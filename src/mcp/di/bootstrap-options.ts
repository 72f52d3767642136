/**
 * @module mcp/di/bootstrap-options
 * What `bootstrap()` accepts: the module class and its options.
 */
import type { TasksOptions } from "../serve/served-tasks.js";
import type { Readable, Writable } from "node:stream";
import type { DependencyContainer } from "tsyringe";
import type { Asker } from "../../contracts/elicitation.js";
import type { RunContext } from "../../context/run-context.js";

/** A module class (decorated with `@McpServer`). */
export type ModuleClass = abstract new (...args: never[]) => unknown;

/** Options of `bootstrap`. Checked before anything starts; a bad one throws `BootstrapError` (step `options`). */
export interface BootstrapOptions {
  /** The parent container; a child of it is created for the app. Default: tsyringe's root container. */
  readonly container?: DependencyContainer;
  /** The run context served calls and approvals use. Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
  /**
   * How this process serves the module, overriding the module's `transport`
   * (the `agentkit serve --transport` flag). `"http"`: the loopback listener.
   * `"stdio"`: this process's own stdin/stdout — it is the child a CLI
   * spawned — with the module's guard and audit file, and no `ApprovalServer`
   * (an HTTP tool the CLI cannot reach from a config that spawns a child).
   * Unset: the module's `transport` (for `"stdio"`, a spec naming `command`).
   */
  readonly transport?: "http" | "stdio";
  /**
   * The listener's port, overriding the module's `port` (over HTTP only).
   * Default: the module's, else an ephemeral one. `agentkit serve --watch`
   * restarts on the port it had, so the URL stays. A busy port fails the
   * bootstrap (step `serve`) with Node's `EADDRINUSE`.
   */
  readonly port?: number;
  /** Override the module's timeout. */
  readonly timeoutMs?: number;
  /** Serve the registry (default `true`); `false` builds the container and remote providers only. */
  readonly serve?: boolean;
  /** For `transport: "stdio"`: read requests here. Default `process.stdin`. */
  readonly stdin?: Readable;
  /** For `transport: "stdio"`: write the protocol here, and nothing else may. Default `process.stdout`. */
  readonly stdout?: Writable;
  /**
   * The person who answers (the `agentkit serve --approve` flag): it answers
   * the module's approval prompts instead of the Asker its `approvals` token
   * resolves to, or where the module names none; and the module's
   * `requiresApproval` tools ask it before they run, as with `guard: "asker"`,
   * unless the module says `guard: "none"`. So a module needs no Asker class
   * of its own to be served with a person at hand.
   */
  readonly asker?: Asker;
  /**
   * MCP tasks for this serving (the `agentkit serve --store` flags): wins
   * over the module's own `tasks` option. See `TasksOptions`.
   */
  readonly tasks?: TasksOptions;
}
