/**
 * @module test/mcp-approvals/one-call-path.test
 * The approval server has no `tools/call` server of its own: its `approve`
 * tool is served by the package's one serve path (`servedServerFactory`).
 * Checked twice: in its source (no SDK `Server` built, no request handler
 * set in `src/mcp/approvals/`), and by what only the serve path answers —
 * the package's own `serverInfo` on both eras, and the served tool's
 * descriptor (its annotations and `_meta.agentkit`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalServer } from "../../src/mcp/approvals/index.js";
import { PACKAGE_VERSION } from "../../src/util/package-version.js";
import { askerAnswering } from "../helpers/asker.js";
import { INITIALIZE, rawPost, rpcMessages } from "../mcp-serve/helpers.js";

const APPROVALS_DIR = join(import.meta.dirname, "../../src/mcp/approvals");

const servers: ApprovalServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

async function started(): Promise<ApprovalServer> {
  const server = await ApprovalServer.start({ asker: askerAnswering({ kind: "approve" }) });
  servers.push(server);
  return server;
}

/** The 2026-07-28 request envelope. */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

describe("one tools/call path for served tools and the approval tool", () => {
  it("src/mcp/approvals builds no SDK Server and sets no request handler: the serve path serves approve", () => {
    const files = readdirSync(APPROVALS_DIR).filter((f) => f.endsWith(".ts"));
    expect(files).toContain("approval-server.ts");
    for (const file of files) {
      const source = readFileSync(join(APPROVALS_DIR, file), "utf8");
      expect(source, file).not.toMatch(/\bsetRequestHandler\s*\(/);
      expect(source, file).not.toMatch(/\bsdkServer\s*\(/);
      expect(source, file).not.toMatch(/\bnew\s+Server\s*\(/);
    }
    expect(readFileSync(join(APPROVALS_DIR, "approval-server.ts"), "utf8")).toMatch(/\bservedServerFactory\s*\(/);
  });

  it("answers as the serve path does: the package's serverInfo on both eras, approve listed with the served descriptor", async () => {
    const server = await started();
    const auth = { ...server.authHeaders };
    const init = (await rpcMessages(await rawPost(server.url, INITIALIZE, auth))).at(-1) as {
      result: { serverInfo: { name: string; version: string }; capabilities: Record<string, unknown> };
    };
    expect(init.result.serverInfo).toEqual({ name: "agentkit_approvals", version: PACKAGE_VERSION });
    // its one tool never changes and never logs: no listChanged (a 2026 client would open a listen stream per call), no logging
    expect(init.result.capabilities).toEqual({ tools: {} });

    const headers = { ...auth, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
    const listed = (
      await rpcMessages(await rawPost(server.url, { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: ENVELOPE } }, headers))
    ).at(-1) as {
      result: { tools: Array<Record<string, unknown>>; _meta: Record<string, unknown> };
    };
    expect(listed.result._meta["io.modelcontextprotocol/serverInfo"]).toEqual({ name: "agentkit_approvals", version: PACKAGE_VERSION });
    expect(listed.result.tools).toHaveLength(1);
    expect(listed.result.tools[0]).toMatchObject({
      name: "approve",
      annotations: { readOnlyHint: true, destructiveHint: false },
      _meta: { agentkit: { side_effecting: false, requires_approval: false, caps: [] } },
    });
  });
});
