/**
 * @module express/dev-issuer
 * The in-process token issuer of `mcpRouter({ dev: true })` and `agentkit
 * host --dev`: a signing key made in memory at start (never written
 * anywhere), short-lived JWT access tokens (HS256, `typ: at+jwt`) whose
 * audience is the router's `resource` and whose scopes are every scope the
 * served module declares, and their verifier. The current token is handed
 * over through two files in a fresh 0700 directory — the `Authorization`
 * value and a ready MCP config — each mode 0600, renewed at half the token's
 * life (each file replaced by a rename, never missing), removed on close (and at exit). Never printed: the warning names the
 * files, not the token. Loopback only, and refused under
 * `NODE_ENV=production` (`dev-refusal`).
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPrivateFile, removeEmptyDir, removePrivateFile, renamePrivateFile, type PrivateFile } from "../wire/mcp-config-file.js";
import { errorLine } from "../util/format.js";
import type { AccessTokenInfo } from "./router-options.js";
import { AccessTokenError } from "./access-token.error.js";

/** How long a development token lives: 10 minutes. */
export const DEV_TOKEN_TTL_SEC = 600;
/** The client a development token names. */
export const DEV_CLIENT_ID = "agentkit-dev";
/** The issuer a development token names (`iss`, and `extra.issuer` of its caller). */
export const DEV_ISSUER = "urn:arc-agentkit:dev";

/** Where `dev: true` hands the current token over: both files mode 0600 in a 0700 directory of their own. */
export interface DevTokenFiles {
  /** The directory (under `os.tmpdir()`, `agentkit-dev-*`), removed on close. */
  readonly dir: string;
  /** The `Authorization` header's value, `Bearer <token>` (for `--header-env Authorization=VAR`, or your client's headers). */
  readonly authorization: string;
  /** A ready `{"mcpServers": {...}}` document, the token in its `headers` (for `claude --mcp-config <file>`). */
  readonly mcpConfig: string;
}

const b64 = (value: Buffer | string): string => Buffer.from(value).toString("base64url");
const HEADER = b64(JSON.stringify({ alg: "HS256", typ: "at+jwt" }));

/** One router's development issuer (see the module note). */
export class DevIssuer {
  /** The signing key: made here, held in memory only. */
  private readonly key = randomBytes(32);
  private readonly audience: string;
  private readonly written: PrivateFile[] = [];
  private renewal: NodeJS.Timeout | undefined;
  private closed = false;
  /** The files the current token is in. */
  readonly files: DevTokenFiles;

  /** A fresh key and a fresh private directory for `resource`'s tokens (no file is written until `start`). */
  constructor(readonly resource: URL) {
    this.audience = resource.href;
    const dir = mkdtempSync(join(tmpdir(), "agentkit-dev-"));
    chmodSync(dir, 0o700);
    this.files = Object.freeze({ dir, authorization: join(dir, "authorization"), mcpConfig: join(dir, "mcp-config.json") });
    process.once("exit", this.sweep);
  }

  /** A token for `scopes`, valid `DEV_TOKEN_TTL_SEC` from now. */
  mint(scopes: readonly string[]): string {
    const iat = Math.floor(Date.now() / 1000);
    const payload = b64(
      JSON.stringify({
        iss: DEV_ISSUER,
        sub: "developer",
        client_id: DEV_CLIENT_ID,
        aud: this.audience,
        scope: scopes.join(" "),
        iat,
        exp: iat + DEV_TOKEN_TTL_SEC,
        jti: randomUUID(),
      }),
    );
    return `${HEADER}.${payload}.${this.sign(`${HEADER}.${payload}`)}`;
  }

  /**
   * The router's `verifyAccessToken`: a token this issuer signed, for this
   * resource, not expired; else throws `AccessTokenError` with a one-line
   * reason (the 401's `error_description`).
   */
  readonly verify = (token: string): AccessTokenInfo => {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== HEADER)
      throw new AccessTokenError("malformed", "not a development token of this router (dev: true accepts only the tokens it issued)");
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const got = Buffer.from(parts[2]!);
    if (got.length !== expected.length || !timingSafeEqual(got, expected))
      throw new AccessTokenError(
        "signature",
        "not a development token of this router: its signature is not this process's key (a restarted server has a new one; read the token file again)",
      );
    const claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as {
      aud: string;
      scope: string;
      exp: number;
      sub: string;
    };
    if (claims.aud !== this.audience)
      throw new AccessTokenError("audience", `the development token is for ${claims.aud}, not ${this.audience}`);
    if (claims.exp <= Date.now() / 1000)
      throw new AccessTokenError(
        "expired",
        `the token expired at ${new Date(claims.exp * 1000).toISOString()}; the current one is in ${this.files.authorization}`,
      );
    return {
      clientId: DEV_CLIENT_ID,
      scopes: claims.scope ? claims.scope.split(" ") : [],
      expiresAt: claims.exp,
      resource: claims.aud,
      subject: claims.sub,
      extra: { issuer: DEV_ISSUER },
    };
  };

  /** Write the first token for `scopes` (server `name` in the MCP config) and renew it at half its life until `stop()`. */
  start(name: string, scopes: readonly string[]): void {
    if (this.closed) return;
    this.write(name, scopes);
    this.renewal = setInterval(() => this.renew(name, scopes), (DEV_TOKEN_TTL_SEC / 2) * 1000);
    this.renewal.unref();
  }

  /** Stop renewing and remove the files and their directory. Idempotent. */
  stop(): void {
    this.closed = true;
    clearInterval(this.renewal);
    process.removeListener("exit", this.sweep);
    this.sweep();
  }

  private sign(input: string): string {
    return createHmac("sha256", this.key).update(input).digest("base64url");
  }

  /**
   * Replace both files with a fresh token's: each written whole to a new file beside it (created exclusively, mode
   * 0600), then renamed over it, so a client reading either one never finds it missing or half-written. Each is
   * recorded as soon as it is in place, so a failure between the two still leaves both to `stop()` and the sweep.
   */
  private write(name: string, scopes: readonly string[]): void {
    const authorization = `Bearer ${this.mint(scopes)}`;
    const config = { mcpServers: { [name]: { type: "http", url: this.audience, headers: { Authorization: authorization } } } };
    this.written[0] = this.replace(this.files.authorization, `${authorization}\n`, "the development token");
    this.written[1] = this.replace(this.files.mcpConfig, `${JSON.stringify(config, null, 2)}\n`, "the development MCP config");
  }

  /** A renewal: `write`, and a failure said on stderr (the current token stays good until it expires), never thrown. */
  private renew(name: string, scopes: readonly string[]): void {
    try {
      this.write(name, scopes);
    } catch (err) {
      process.stderr.write(
        `mcpRouter: the development token files in ${this.files.dir} could not be renewed (${errorLine(err)}); ` +
          `the current token stays good until it expires; the next try is in ${DEV_TOKEN_TTL_SEC / 120} min\n`,
      );
    }
  }

  /** `text` in a new 0600 file beside `path`, renamed over it: one step for a reader (both are in the 0700 directory). */
  private replace(path: string, text: string, what: string): PrivateFile {
    const fresh = createPrivateFile(`${path}.${randomUUID()}`, text, what);
    try {
      return renamePrivateFile(fresh, path);
    } catch (err) {
      try {
        removePrivateFile(fresh);
      } catch {
        // the rename's failure is the one to report
      }
      throw err;
    }
  }

  private removeFiles(): void {
    for (const file of this.written.splice(0)) removePrivateFile(file);
  }

  private readonly sweep = (): void => {
    try {
      this.removeFiles();
      removeEmptyDir(this.files.dir);
    } catch {
      // best effort: a file someone replaced is theirs
    }
  };
}
