/**
 * @module test/mcp-serve/config-file-fence.test
 * The 0600 config file is a live credential, so its path is a fence: a
 * symlink, a directory or a file somebody else put at `configPath` is refused
 * by name (nothing written through it, nothing created elsewhere), and
 * `stop()` deletes only the file this spec wrote — not a file put in its place.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentkitError, tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer } from "../../src/mcp/index.js";
import { removeMcpConfig, writeMcpConfig } from "../../src/wire/mcp-config-file.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { victimFile } from "../helpers/victim-file.js";
import { holdPort, portIsFree } from "./helpers.js";

const ping = tool({ description: "Ping.", input: { type: "object", properties: {} } }, function ping() {
  return "pong";
});

let dir: string;
const specs: McpServerSpec[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentkit-fence-"));
});
afterEach(async () => {
  for (const s of specs.splice(0)) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A file that must survive in this test's directory: its text and mode are checked afterwards. */
const victim = () => victimFile(dir);

async function served(configPath: string): Promise<McpServerSpec> {
  const s = await serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), configPath });
  specs.push(s);
  return s;
}

/** serveRegistry with a fixed, free port; resolves to the error it rejected with. */
async function refused(configPath: string): Promise<{ err: unknown; port: number }> {
  const probe = await holdPort();
  await probe.close();
  const err = await serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), configPath, port: probe.port }).then(
    (s) => (specs.push(s), null),
    (e: unknown) => e,
  );
  return { err, port: probe.port };
}

describe("serveRegistry({ configPath }) refuses what it did not create", () => {
  it("a symlink to a victim file: refused naming the path; the victim is untouched; the port is released", async () => {
    const v = victim();
    const path = join(dir, "mcp.json");
    symlinkSync(v.path, path);
    const { err, port } = await refused(path);
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("mcp_config_file");
    expect((err as Error).message).toContain(`${path} is a symbolic link`);
    v.intact();
    expect(readlinkSync(path)).toBe(v.path);
    expect(await portIsFree(port)).toBe(true);
  });

  it("a dangling symlink: refused; nothing is created where it points", async () => {
    const target = join(dir, "elsewhere", "token.json");
    mkdirSync(dirname(target));
    const path = join(dir, "mcp.json");
    symlinkSync(target, path);
    const { err } = await refused(path);
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("mcp_config_file");
    expect((err as Error).message).toContain(`${path} is a symbolic link`);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dirname(target))).toEqual([]);
  });

  it("a directory: refused naming the path", async () => {
    const path = join(dir, "mcp.json");
    mkdirSync(path);
    const { err } = await refused(path);
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("mcp_config_file");
    expect((err as Error).message).toContain(`${path} is a directory`);
    expect(readdirSync(path)).toEqual([]);
  });

  it("an existing file it did not write: refused naming the path; the file is untouched", async () => {
    const v = victim();
    const { err } = await refused(v.path);
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("mcp_config_file");
    expect((err as Error).message).toContain(`${v.path} already exists`);
    v.intact();
  });
});

describe("stop() deletes only what the spec wrote", () => {
  it("removes its own file (0600, created exclusively) and leaves the caller's directory", async () => {
    const path = join(dir, "mcp.json");
    const s = await served(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await s.start();
    await s.stop();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  it("a file renamed over its own is left alone", async () => {
    const path = join(dir, "mcp.json");
    const s = await served(path);
    await s.start();
    writeFileSync(join(dir, "other.json"), "somebody else's\n");
    renameSync(join(dir, "other.json"), path);
    await s.stop();
    expect(readFileSync(path, "utf8")).toBe("somebody else's\n");
  });

  it("a symlink put in its place is left alone, and so is the file it points to", async () => {
    const v = victim();
    const path = join(dir, "mcp.json");
    const s = await served(path);
    await s.start();
    unlinkSync(path);
    symlinkSync(v.path, path);
    await s.stop();
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    v.intact();
  });

  it("start() after stop() refuses a symlink planted meanwhile, naming the path, and writes nothing through it", async () => {
    const v = victim();
    const path = join(dir, "mcp.json");
    const s = await served(path);
    await s.start();
    await s.stop();
    symlinkSync(v.path, path);
    const err = await s.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("mcp_config_file");
    expect((err as Error).message).toContain(`${path} is a symbolic link`);
    expect(s.serving).toBe(false);
    v.intact();
  });
});

describe("writeMcpConfig / removeMcpConfig", () => {
  it("refuse a symlink and leave a replaced file in place", () => {
    const v = victim();
    const link = join(dir, "link.json");
    symlinkSync(v.path, link);
    expect(() => writeMcpConfig({ mcpServers: {} }, { configPath: link })).toThrow(expect.objectContaining({ code: "mcp_config_file" }));
    v.intact();

    const path = join(dir, "own.json");
    const w = writeMcpConfig({ mcpServers: {} }, { configPath: path });
    expect(readFileSync(path, "utf8")).toBe('{"mcpServers":{}}');
    unlinkSync(path);
    writeFileSync(path, "replacement");
    removeMcpConfig(w);
    expect(readFileSync(path, "utf8")).toBe("replacement");
  });
});

describe("ApprovalServer's config file", () => {
  it("stop() leaves a file put in place of its own, and the directory holding it", async () => {
    const approvals = await new ApprovalServer({ asker: { ask: async () => ({ kind: "approve" }) } }).start();
    const path = approvals.configPath;
    try {
      unlinkSync(path);
      writeFileSync(path, "not the server's");
    } finally {
      await approvals.stop();
    }
    expect(readFileSync(path, "utf8")).toBe("not the server's");
    rmSync(dirname(path), { recursive: true });
  });
});
