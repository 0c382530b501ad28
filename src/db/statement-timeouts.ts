/**
 * How long one SQL statement may run (docs/operations.md#admission-control-and-timeouts). Reads get
 * a short bound so a heavy query cannot hold a pooled connection for long (its answer is a 503
 * asking to narrow or retry); a write transaction raises it for itself, since waiting for a row
 * lock under contention is normal. `DB_READ_TIMEOUT_MS` sets the read bound of the server; 0 (the
 * CLIs: migrate, seed) is none.
 */
export const READ_STATEMENT_TIMEOUT_MS = 5000;
export const WRITE_STATEMENT_TIMEOUT_MS = 30_000;
