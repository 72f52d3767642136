/**
 * @module arc-agentkit/testing
 * Public surface of the testing kit: a scripted model, a recording context,
 * and a module served to an `MCPClient` in memory (`connectModule`, which
 * needs the MCP peers `@modelcontextprotocol/server` and `/client`; it is
 * loaded from the MCP layer, the one import of this entry point above the core).
 * Every export is listed by name; a test snapshots the sorted names.
 */
import "reflect-metadata";
export { FakeLLM, Turn } from "./fake-llm.js";
export { makeTestCtx, TestRunContext } from "./test-ctx.js";
export { connectModule } from "../mcp/di/in-memory.js";
export type { ConnectedModule, ConnectModuleOptions } from "../mcp/di/in-memory.js";
