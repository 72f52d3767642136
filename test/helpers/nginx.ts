/**
 * @module test/helpers/nginx
 * The real nginx the tests start in front of a fleet (shared with the
 * benchmarks: see bench/lib/nginx.ts).
 */
export { NGINX, freePort, startNginx, type TestNginx } from "../../bench/lib/nginx.js";
