import { PreconditionFailedError } from './errors.js';

/**
 * The versions a write may still find on the record it changes: the caller read the record at
 * one of them. Absent (`undefined` or `null`): no check. Several: any of them (REST's `If-Match`
 * may list several ETags). Empty: none matches (an `If-Match` naming only tags that can never be
 * current, such as weak ones). GraphQL takes it as the `expectedVersion` argument of every write
 * on a versioned record; REST maps `If-Match` onto that argument.
 */
export type ExpectedVersion = readonly number[] | null | undefined;

/**
 * Called by a use case right after it locked the record, inside its transaction: a record that
 * has moved on since the caller read it refuses the write before anything changed, so two editors
 * cannot overwrite each other. `record` names it in the message (`Order 12`).
 */
export function checkExpectedVersion(record: string, version: number, expected: ExpectedVersion): void {
  if (expected == null || expected.includes(version)) return;
  throw new PreconditionFailedError(
    `${record} has changed since it was read (its version is now ${version}); read it again before writing`,
  );
}

/**
 * A write on a versioned record starts here, right after its row lock: the caller's expected
 * version is compared, then the version moves on by one, flushed with the write. It moves whether
 * or not the record's own row changes (an order's fulfilments and shipments, a product's variants,
 * a customer's addresses live in other tables), so a caller holding the old version can never
 * overwrite this write unseen, and a cached copy is never answered 304. `shown` is the version
 * the record shows when it is derived from the stored one (a rule-based collection's).
 */
export function beginVersionedWrite(
  record: string,
  locked: { version: number },
  expected: ExpectedVersion,
  shown = locked.version,
): void {
  checkExpectedVersion(record, shown, expected);
  locked.version += 1;
}
