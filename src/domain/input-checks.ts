import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import type { FieldError } from './errors.js';
import { MAX_AMOUNT_CENTS, toCents } from './money.js';

/**
 * Checks shared by the catalogue writes. Each pushes a FieldError (path in GraphQL input names)
 * instead of throwing, so one answer names every bad value.
 */
export function checkText(
  value: string | null | undefined,
  field: string,
  errors: FieldError[],
  { limit = 255, required = false }: { limit?: number; required?: boolean } = {},
): void {
  if (value === undefined || value === null) return;
  if (required && !value.trim()) errors.push({ field, message: 'must not be empty' });
  if (value.length > limit) errors.push({ field, message: `must be at most ${limit} characters` });
}

/** Money (already a Decimal string): ≥ 0 and within numeric(12,2). */
export function checkAmount(value: string | null | undefined, field: string, errors: FieldError[]): void {
  if (value === undefined || value === null) return;
  const cents = toCents(value);
  if (cents < 0n) errors.push({ field, message: 'must not be negative' });
  else if (cents > MAX_AMOUNT_CENTS) errors.push({ field, message: 'is too large' });
}

/** Each value of a list once: later repeats are named. */
export function checkDistinct<T>(
  values: readonly T[],
  field: string,
  errors: FieldError[],
  key: (v: T) => unknown = (v) => v,
): void {
  const first = new Map<unknown, number>();
  values.forEach((value, i) => {
    const k = key(value);
    const seen = first.get(k);
    if (seen === undefined) first.set(k, i);
    else errors.push({ field: `${field}[${i}]`, message: `repeats the entry at [${seen}]` });
  });
}

/** The ids among `ids` that have no row of `entity` (one query). */
export async function missingIds(
  em: EntityManager,
  entity: EntityName<{ id: number }>,
  ids: Iterable<number>,
): Promise<Set<number>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Set();
  const found = await em.find(entity, { id: { $in: wanted } } as never, { fields: ['id'] as never });
  const present = new Set(found.map((row) => row.id));
  return new Set(wanted.filter((id) => !present.has(id)));
}

/** Reports every position of `ids` whose record is in `missing`. */
export function reportMissing(
  ids: readonly number[] | undefined,
  field: string,
  missing: Set<number>,
  what: string,
  errors: FieldError[],
): void {
  ids?.forEach((id, i) => {
    if (missing.has(id)) errors.push({ field: `${field}[${i}]`, message: `${what} ${id} does not exist` });
  });
}
