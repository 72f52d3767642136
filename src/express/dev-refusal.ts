/**
 * @module express/dev-refusal
 * Where development mode (`mcpRouter({ dev: true })`, `agentkit host --dev`)
 * may run: loopback hosts and addresses only, never under
 * `NODE_ENV=production`. Pure.
 */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** True for a hostname (as `URL.hostname` spells it, or a bare `::1`) that names this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

/** True for a socket address on loopback (IPv4 127/8, `::1`, or 127/8 mapped into IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === "::1" || /^(::ffff:)?127(\.\d{1,3}){3}$/i.test(address);
}

/**
 * Why development mode may not run here, as one sentence for `where`
 * (`mcpRouter` or `agentkit host`), or `undefined`: refused whenever
 * `NODE_ENV` is `production`. Pure over `env`.
 */
export function devRefusal(where: string, flag: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env["NODE_ENV"] !== "production") return undefined;
  return (
    `${where}: ${flag} is refused because NODE_ENV=production: development mode issues its own access tokens to ` +
    `anyone on this machine and must never be shipped; configure an authorization server instead (resource, ` +
    `authorizationServers and verifyAccessToken: jwtVerifier(...); agentkit host --resource URL --issuer URL)`
  );
}
