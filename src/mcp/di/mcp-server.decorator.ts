/**
 * @module mcp/di/mcp-server.decorator
 * `@McpServer({...})`: marks a module class. Checks its options
 * (`mcp-server-options`), records frozen metadata; acts on nothing.
 */
import "reflect-metadata";
import { MCP_SERVER_METADATA } from "../../keys.js";
import { classMetadata } from "../../tools/injectable-class.js";
import { checkMcpServerOptions, type McpServerOptions } from "./mcp-server-options.js";

/**
 * Mark a module class. Options are checked now (a bad one throws
 * `DefinitionError` naming the class and the key); `bootstrap(Module)` acts.
 *
 * MCP SDK: its `McpServer` is the server class; this is the decorator the
 * design card names, and `bootstrap()` builds the SDK's server from the
 * module it marks.
 */
export function McpServer(options: McpServerOptions): ClassDecorator {
  return (target) => {
    checkMcpServerOptions((target as { name: string }).name, options);
    const meta = Object.freeze({
      ...options,
      tools: Object.freeze([...options.tools]),
      resources: Object.freeze([...(options.resources ?? [])]),
      providers: Object.freeze([...(options.providers ?? [])]),
      remotes: Object.freeze([...(options.remotes ?? [])]),
      imports: Object.freeze([...(options.imports ?? [])]),
    });
    Reflect.defineMetadata(MCP_SERVER_METADATA, meta, target);
  };
}

/** The frozen options `@McpServer` recorded on `cls`, or `undefined`. */
export function getMcpServerMetadata(cls: unknown): Readonly<McpServerOptions> | undefined {
  return classMetadata<McpServerOptions>(MCP_SERVER_METADATA, cls);
}
