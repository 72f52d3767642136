/**
 * @module mcp/oauth/token-store
 * Where the shipped OAuth provider keeps what a login produced, per MCP
 * server URL: one JSON file each, mode 0600, in a directory only the user can
 * write (created 0700 under the user's config directory). Written whole (a private temp file renamed over
 * the old one), so a reader never sees half a file and another user never
 * sees any of it.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import { OptionsError } from "../../errors/options.error.js";
import { createPrivateFile } from "../../wire/mcp-config-file.js";

/** What is kept for one server. */
export interface StoredLogin {
  /** The MCP server URL (the file's key). */
  readonly serverUrl: string;
  /** The client registration (dynamic, or a client ID metadata document URL), as the SDK handed it over (its `issuer` stamp included). */
  client?: StoredOAuthClientInformation;
  /** The tokens, as the SDK handed them over (its `issuer` stamp included). */
  tokens?: StoredOAuthTokens;
  /** What discovery found (the authorization server, its metadata, the resource metadata), as the SDK handed it over. */
  discovery?: OAuthDiscoveryState;
}

/**
 * The default token directory: `$XDG_CONFIG_HOME/arc-agentkit/oauth`, else
 * `~/.config/arc-agentkit/oauth` (`%APPDATA%\arc-agentkit\oauth` on Windows).
 */
export function defaultTokenDir(): string {
  const base = process.env.XDG_CONFIG_HOME || (process.platform === "win32" && process.env.APPDATA) || join(homedir(), ".config");
  return join(base, "arc-agentkit", "oauth");
}

/** One server's file in `dir`. */
export class TokenFile {
  /** The file's path: a hash of the server URL, so the URL itself is not in a directory listing. */
  readonly path: string;

  constructor(
    readonly dir: string,
    readonly serverUrl: string,
  ) {
    this.path = join(dir, `${createHash("sha256").update(serverUrl).digest("hex").slice(0, 32)}.json`);
  }

  /** What is stored (an empty login when there is no file, or it is unreadable or for another URL). */
  read(): StoredLogin {
    try {
      const data = JSON.parse(readFileSync(this.path, "utf8")) as StoredLogin;
      if (data && data.serverUrl === this.serverUrl)
        return { serverUrl: this.serverUrl, client: data.client, tokens: data.tokens, discovery: data.discovery };
    } catch {
      // none yet, or not ours to read: start empty
    }
    return { serverUrl: this.serverUrl };
  }

  /**
   * Replace the file with `login` (0600, via a private temp file renamed into place).
   *
   * @throws OptionsError (option `tokenDir`) when the directory exists and is not a directory, or others can write it.
   */
  write(login: StoredLogin): void {
    this.ensureDir();
    const tmp = `${this.path}.${randomBytes(6).toString("hex")}.tmp`;
    createPrivateFile(tmp, `${JSON.stringify(login, null, 2)}\n`, "the OAuth token file");
    try {
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  /**
   * Create the directory 0700 when it is missing; an existing one is used as
   * it is (never chmodded: it may be the user's own, shared with other
   * files), but refused when another user could write it (swap or pre-create
   * the token file) or it belongs to another user.
   */
  private ensureDir(): void {
    let st: Stats;
    try {
      st = statSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      chmodSync(this.dir, 0o700); // made here just now: ours to set whatever the umask
      return;
    }
    const why = !st.isDirectory()
      ? "is not a directory"
      : (st.mode & 0o022) !== 0
        ? `can be written by other users (mode ${(st.mode & 0o777).toString(8)})`
        : typeof process.getuid === "function" && st.uid !== process.getuid()
          ? `belongs to another user (uid ${st.uid})`
          : undefined;
    if (why) {
      throw new OptionsError(
        "oauthProvider",
        "tokenDir",
        `the OAuth token directory '${this.dir}' ${why}; tokens are not kept there. Use a directory only you can ` +
          `write (chmod go-w '${this.dir}'), or another --token-dir / tokenDir`,
      );
    }
  }

  /** Delete the file (a logout). */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}
