/**
 * @module samples/hosted/server
 * The release tools hosted on your own express app: `mcpRouter` mounted at the
 * path of this server's public URL, JWT access tokens from your authorization
 * server checked by `jwtVerifier`. Run it with
 *
 *   npm run build
 *   RESOURCE=http://127.0.0.1:8081/mcp ISSUER=https://auth.example.com node build/samples/hosted/server.js
 *
 * (every process behind one load balancer gets the same AGENTKIT_FLEET_KEY).
 * It prints one JSON line once listening; SIGTERM stops it.
 */
import "reflect-metadata";
import express from "express";
import { hostedServer, jwtVerifier, mcpRouter } from "arc-agentkit/express";
import { ReleaseTools } from "./release-tools.module.js";

const resource = process.env["RESOURCE"] ?? "http://127.0.0.1:8081/mcp";
const issuer = process.env["ISSUER"] ?? "https://auth.example.com";
const fleetKey = process.env["AGENTKIT_FLEET_KEY"];

const router = mcpRouter(ReleaseTools, {
  resource,
  authorizationServers: [issuer],
  verifyAccessToken: jwtVerifier({ issuer, audience: resource }),
  ...(fleetKey ? { fleetKey } : {}),
});
await router.ready;

const app = express();
app.use(new URL(resource).pathname, router);
// hostedServer, not app.listen(): the socket deadlines of `agentkit host` (a trickled request gets 408).
const server = await hostedServer(app, { port: Number(new URL(resource).port || 8081), host: "127.0.0.1" });
console.log(JSON.stringify({ listening: resource, pid: process.pid, metadata: router.resourceMetadataUrl }));
process.once("SIGTERM", () => server.close(() => void router.stop()));
