/**
 * @module test/mcp/index.test
 * Public surface of `arc-agentkit/mcp` (src/mcp/index.ts). The list is inline on
 * purpose: adding, removing or renaming an export changes this file. Removed
 * on purpose (internal): the listener's pure checks (`checkBearer`,
 * `checkHost`, `checkOrigin`, `isLoopbackHost`), its token helpers
 * (`generateToken`, `tokenDigest`), `LoopbackMcpTransport`, the config-file
 * writer (`writeMcpConfig`, `rewriteMcpConfig`, `removeMcpConfig`), the name
 * rules (`checkServerName`, `checkQualifiedName`, `sanitiseToolName`,
 * `MAX_QUALIFIED_NAME_LENGTH`) and `moduleOptions`. Exported as types only
 * (#28): the classes a factory or `bootstrap()` builds — `McpServerSpec`
 * (from `serveRegistry`), `McpApp` (from `bootstrap`), `McpTool` (from
 * `mcpTools`), `McpResourceMemory` (from `mcpResources`), `McpTask` (from
 * `MCPClient.startTool` / `resumeTask`).
 */
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import * as mcp from "../../src/mcp/index.js";
import { declaredExports } from "../core/surface.js";

it("arc-agentkit/mcp runtime exports, sorted", () => {
  expect(Object.keys(mcp).sort()).toEqual([
    "ApprovalServer",
    "DEFAULT_TTL_MS",
    "InjectMcpClient",
    "InjectMcpPrompts",
    "InjectMcpResources",
    "InjectMcpSkills",
    "InjectMcpTools",
    "MCPClient",
    "META_KEY",
    "McpServer",
    "MemoryResultStore",
    "Prompt",
    "Resource",
    "StdioServer",
    "StreamableHttpServer",
    "approvalGuard",
    "bootstrap",
    "clientCredentials",
    "crossAppAccess",
    "mcpPrompts",
    "mcpResources",
    "mcpSkills",
    "mcpTools",
    "oauthProvider",
    "remote",
    "serveRegistry",
    "serveRegistryStdio",
    "stdioCommand",
    "toolResultText",
  ]);
});

it("the classes a factory or bootstrap() builds are types here, not values to construct", () => {
  const values = mcp as Record<string, unknown>;
  for (const name of ["McpServerSpec", "McpApp", "McpTool", "McpResourceMemory", "McpTask"]) expect(values[name], name).toBeUndefined();
  // their factories are the one way in
  for (const name of ["serveRegistry", "bootstrap", "mcpTools", "mcpResources"]) expect(typeof values[name], name).toBe("function");
});

it("arc-agentkit/mcp: every export the compiler sees, types included, sorted", () => {
  expect(declaredExports(fileURLToPath(new URL("../../src/mcp/index.ts", import.meta.url)))).toEqual([
    "approvalGuard",
    "type ApprovalGuard",
    "type ApprovalGuardOptions",
    "ApprovalServer",
    "type ApprovalServerOptions",
    "bootstrap",
    "type BootstrapOptions",
    "clientCredentials",
    "type ClientCredentialsOptions",
    "crossAppAccess",
    "type CrossAppAccessOptions",
    "DEFAULT_TTL_MS",
    "InjectMcpClient",
    "InjectMcpPrompts",
    "InjectMcpResources",
    "InjectMcpSkills",
    "InjectMcpTools",
    "type McpApp",
    "MCPClient",
    "type MCPClientOptions",
    "mcpPrompts",
    "type McpResourceMemory",
    "mcpResources",
    "McpServer",
    "type McpServerConfig",
    "type McpServerOptions",
    "type McpServerSpec",
    "type McpSkill",
    "mcpSkills",
    "type McpTask",
    "type McpTool",
    "mcpTools",
    "MemoryResultStore",
    "META_KEY",
    "type ModuleClass",
    "oauthProvider",
    "type OAuthProviderOptions",
    "Prompt",
    "type PromptOptions",
    "type Provider",
    "remote",
    "Resource",
    "type ResourceOptions",
    "type ResultStore",
    "serveRegistry",
    "type ServeRegistryOptions",
    "serveRegistryStdio",
    "type ServeStdioOptions",
    "type SpilledResult",
    "stdioCommand",
    "StdioServer",
    "type StdioServerOptions",
    "StreamableHttpServer",
    "type StreamableHttpServerOptions",
    "type ToolGuard",
    "toolResultText",
  ]);
  // The TypeScript compiler over the whole entry point: seconds alone, minutes beside other suites on 2 cores.
}, 120_000);
