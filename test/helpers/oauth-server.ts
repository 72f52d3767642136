/**
 * @module test/helpers/oauth-server
 * The real local OAuth authorization server the tests start (shared with the
 * benchmarks: see bench/lib/oauth-server.ts).
 */
export { startAuthServer, type MintOptions, type TestAuthServer, type TestClient } from "../../bench/lib/oauth-server.js";
