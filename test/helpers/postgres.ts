/**
 * @module test/helpers/postgres
 * The real PostgreSQL server the tests start (shared with the benchmarks: see
 * bench/lib/postgres.ts).
 */
export { startPostgres, type TestPostgres } from "../../bench/lib/postgres.js";
