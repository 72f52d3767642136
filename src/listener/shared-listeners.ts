/**
 * @module listener/shared-listeners
 * The process-wide pool of loopback listeners: every surface of one process
 * that asks for an ephemeral port on a host (the registry, the approval
 * server, the hook endpoint) shares one listener, each at its own path with
 * its own token. A listener lives while a lease on it is held and closes
 * (releasing its port) when the last one is released.
 */
import { LoopbackListener } from "./loopback-listener.js";

/** A hold on a listener; `release()` closes it when nothing else holds it. */
export interface ListenerLease {
  readonly listener: LoopbackListener;
  /** Idempotent; resolves when the listener is closed (if this was its last lease) or at once. */
  release(): Promise<void>;
}

/**
 * - `port` 0: the host's shared listener (bound now if there is none).
 * - `port` N with `rejoin`: the listener this process already has on N, else
 *   a fresh bind of N (how a stopped server gets its old port back).
 * - `port` N without `rejoin`: a listener of its own; a port already taken
 *   (by this process too) rejects with `EADDRINUSE`.
 */
export interface LeaseOptions {
  readonly host: string;
  readonly port: number;
  readonly rejoin?: boolean;
  /** Appended to a bind error's message, e.g. `http://127.0.0.1:4000/mcp`. */
  readonly endpoint?: string;
}

interface Entry {
  readonly ready: Promise<LoopbackListener>;
  leases: number;
  /** Known once bound. */
  key?: string;
  shared: boolean;
}

const sharedByHost = new Map<string, Entry>();
const byAddress = new Map<string, Entry>();
const closing = new Map<string, Promise<void>>();

const addressKey = (host: string, port: number): string => `${host}|${port}`;

function hold(entry: Entry): Promise<ListenerLease> {
  entry.leases++;
  let released = false;
  return entry.ready.then(
    (listener) => ({
      listener,
      release: () => {
        if (released) return Promise.resolve();
        released = true;
        return drop(entry, listener);
      },
    }),
    (err: unknown) => {
      entry.leases--;
      throw err;
    },
  );
}

function drop(entry: Entry, listener: LoopbackListener): Promise<void> {
  entry.leases--;
  if (entry.leases > 0) return Promise.resolve();
  if (entry.shared && sharedByHost.get(listener.host) === entry) sharedByHost.delete(listener.host);
  if (entry.key && byAddress.get(entry.key) === entry) byAddress.delete(entry.key);
  const key = addressKey(listener.host, listener.port);
  const done = listener.close().finally(() => {
    if (closing.get(key) === done) closing.delete(key);
  });
  closing.set(key, done);
  return done;
}

function bindEntry(host: string, port: number, shared: boolean, endpoint: string | undefined): Entry {
  const entry: Entry = { ready: undefined as unknown as Promise<LoopbackListener>, leases: 0, shared };
  const ready = (async () => {
    await closing.get(addressKey(host, port));
    const listener = await LoopbackListener.bind(host, port, endpoint);
    entry.key = addressKey(host, listener.port);
    if (!byAddress.has(entry.key)) byAddress.set(entry.key, entry);
    return listener;
  })();
  (entry as { ready: Promise<LoopbackListener> }).ready = ready;
  ready.catch(() => {
    if (shared && sharedByHost.get(host) === entry) sharedByHost.delete(host);
  });
  return entry;
}

/** Lease a listener (see `LeaseOptions`). Rejects with the bind error (`EADDRINUSE`, ...) when binding fails. */
export function leaseListener(options: LeaseOptions): Promise<ListenerLease> {
  const { host, port } = options;
  if (port === 0) {
    let entry = sharedByHost.get(host);
    if (!entry) {
      entry = bindEntry(host, 0, true, options.endpoint);
      sharedByHost.set(host, entry);
    }
    return hold(entry);
  }
  if (options.rejoin) {
    const existing = byAddress.get(addressKey(host, port));
    if (existing) return hold(existing);
  }
  return hold(bindEntry(host, port, false, options.endpoint));
}
