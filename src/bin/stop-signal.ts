/**
 * @module bin/stop-signal
 * The one stop-signal watcher of the long-running commands (`agentkit serve`,
 * `agentkit host`).
 */

/** What `stopSignal()` returns: the first signal, and what removes the handlers. */
export interface StopSignal {
  /** Resolves with the first of SIGINT/SIGTERM/SIGHUP. */
  readonly received: Promise<NodeJS.Signals>;
  /** Remove the handlers. */
  dispose(): void;
}

/**
 * Resolves with the signal that asked `command` to stop; handlers are
 * installed at once (so a signal during start-up still stops cleanly, once
 * started). A second signal while stopping exits at once (code 1), saying so
 * on stderr with `skipped` (what is not waited for); exit hooks still run.
 */
export function stopSignal(command: string, skipped: string): StopSignal {
  let resolveFn!: (s: NodeJS.Signals) => void;
  const received = new Promise<NodeJS.Signals>((r) => (resolveFn = r));
  let count = 0;
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((sig) => {
    const h = (): void => {
      if (++count > 1) {
        process.stderr.write(`agentkit ${command}: ${sig} again — exiting without waiting for ${skipped}\n`);
        process.exit(1);
      }
      resolveFn(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  return {
    received,
    dispose() {
      for (const [sig, h] of handlers) process.off(sig, h);
    },
  };
}
