/**
 * @module mcp/oauth/peer-user
 * Which local user opened a loopback TCP connection: on Linux the kernel's
 * socket tables (`/proc/net/tcp`, `/proc/net/tcp6`, world-readable) list the
 * owner uid of the client's end. The OAuth redirect listener uses it so that
 * another user of the machine cannot finish (or start) someone's login, even
 * knowing its `state`.
 */
import { readFileSync } from "node:fs";

/** What is known about the user at the other end of a loopback connection. */
export type PeerUser =
  { readonly known: true; readonly uid: number } | { readonly known: false; readonly why: "unsupported" | "not-found" };

/** The port as the socket tables write it: 4 upper-case hex digits. */
function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, "0");
}

/** The table's text, or undefined when this system has none (not Linux, or /proc hidden). */
function table(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

/**
 * The uid owning the client end of the loopback connection whose client port
 * is `clientPort` and whose server port is `serverPort` (as the server sees
 * them: `req.socket.remotePort`, `req.socket.localPort`). `unsupported` when
 * the system has no socket tables; `not-found` when no row matches. Never throws.
 */
export function loopbackPeerUser(clientPort: number, serverPort: number): PeerUser {
  const tables = ["/proc/net/tcp", "/proc/net/tcp6"].map(table).filter((t): t is string => t !== undefined);
  if (tables.length === 0) return { known: false, why: "unsupported" };
  const local = `:${hexPort(clientPort)}`;
  // The listener is bound to 127.0.0.1: the client's far end is that address (IPv4, or IPv4-mapped in tcp6).
  const remote = new Set([`0100007F:${hexPort(serverPort)}`, `0000000000000000FFFF00000100007F:${hexPort(serverPort)}`]);
  for (const text of tables) {
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
      if (f.length > 7 && f[1]!.endsWith(local) && remote.has(f[2]!)) return { known: true, uid: Number(f[7]) };
    }
  }
  return { known: false, why: "not-found" };
}

/**
 * The uids allowed to take part in this process's login: its own, the user
 * who ran it through sudo (`SUDO_UID`), and root (who can read this process's
 * memory anyway). Undefined where the system has no uids (Windows).
 */
export function trustedUids(): ReadonlySet<number> | undefined {
  if (typeof process.getuid !== "function") return undefined;
  const uids = new Set([process.getuid(), 0]);
  const sudo = Number(process.env.SUDO_UID);
  if (Number.isInteger(sudo) && sudo >= 0) uids.add(sudo);
  return uids;
}
