/**
 * @module samples/hosted/client
 * A machine client of the hosted release tools: the package's `MCPClient`
 * with the OAuth client-credentials grant. It reads nothing but the server's
 * URL: the 401 names the protected-resource metadata, which names the
 * authorization server, whose token endpoint gives a token for this resource.
 *
 *   MCP_URL=http://127.0.0.1:8081/mcp CLIENT_ID=ops-bot CLIENT_SECRET=... node build/samples/hosted/client.js
 *
 * The secret comes from the environment, never from argv. Prints one JSON document.
 */
import "reflect-metadata";
import { clientCredentials, MCPClient, StreamableHttpServer, toolResultText } from "arc-agentkit/mcp";

const url = process.env["MCP_URL"] ?? "http://127.0.0.1:8081/mcp";
const auth = clientCredentials({ clientId: process.env["CLIENT_ID"] ?? "ops-bot", clientSecret: process.env["CLIENT_SECRET"] ?? "" });

await using client = await MCPClient.start(new StreamableHttpServer({ url, auth }));
const tools = (await client.listTools()).map((t) => t.name).sort();
const whoAmI = JSON.parse(toolResultText(await client.callTool("who_am_i", {}))) as unknown;
const releases = JSON.parse(toolResultText(await client.callTool("list_releases", {}))) as unknown;
console.log(JSON.stringify({ tools, whoAmI, releases }, null, 2));
