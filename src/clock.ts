/**
 * Stored times are whole seconds. The API shows timestamps as Unix seconds and filters on them
 * exactly, so a stored time with milliseconds would be shown as one value and missed by a filter
 * for that very value. Every timestamp a record shows is written through this file: `now()` for
 * the values the service computes, `SQL_NOW` for the statements that stamp rows in the database.
 * (Bookkeeping that is compared and never shown keeps the database clock's full precision: the
 * rate-limit refill, idempotency leases, the outbox's schedule.)
 */
export function wholeSeconds(time: Date): Date {
  return new Date(Math.floor(time.getTime() / 1000) * 1000);
}

/** The current time in whole seconds. */
export function now(): Date {
  return wholeSeconds(new Date());
}

/** The same rule inside a statement, on the database's clock (its transaction time). */
export const SQL_NOW = `date_trunc('second', now())`;
