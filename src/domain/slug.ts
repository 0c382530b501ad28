import type { EntityManager } from '@mikro-orm/postgresql';
import slugifyText from '@sindresorhus/slugify';

/** A slug is lower-case ASCII letters and digits in hyphen-separated words. */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SLUG = 80;

/**
 * URL slug of a title for `seo_url`, by @sindresorhus/slugify (transliterates Latin and other
 * scripts to ASCII), cut at a word boundary to 80 characters.
 */
export function slugify(text: string): string {
  let slug = slugifyText(text, { decamelize: false });
  if (slug.length > MAX_SLUG) slug = slug.slice(0, MAX_SLUG).replace(/-[^-]*$/, '') || slug.slice(0, MAX_SLUG);
  return slug;
}

/** The slug a title derives before it is made unique (`fallback` when nothing of it is left). */
export function slugBase(title: string, fallback: string): string {
  return slugify(title) || fallback;
}

/** `base` when free, else `base-2`, `base-3`, …: the first that `taken` does not hold. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}

/**
 * The slug of `title` made unique in `table.seo_url` by the first free suffix (`-2`, `-3`, …);
 * `exceptId` is the record being edited (its own URL does not count as taken).
 */
export async function freeSlug(
  em: EntityManager,
  table: 'product' | 'collection',
  title: string,
  exceptId = 0,
  fallback = table,
): Promise<string> {
  const base = slugBase(title, fallback);
  await lockSeoUrls(em, table);
  // `base` is [a-z0-9-] only, so it is safe inside the regular expression.
  const rows = await em
    .getConnection()
    .execute<{ seo_url: string }[]>(
      `select seo_url from ${table} where (seo_url = ? or seo_url ~ ?) and id <> ?`,
      [base, `^${base}-[0-9]+$`, exceptId],
      'all',
      em.getTransactionContext(),
    );
  return firstFreeSlug(base, new Set(rows.map((r) => r.seo_url)));
}

/**
 * Serialises the choice of a URL per table, derived or given, to the end of the transaction: two
 * writes choosing the same one would both see it free and one would then fail on the unique index
 * (a derived URL refused as taken); the lock makes the second see the first.
 */
async function lockSeoUrls(em: EntityManager, table: 'product' | 'collection'): Promise<void> {
  await em
    .getConnection()
    .execute('select pg_advisory_xact_lock(hashtext(?))', [`seo_url:${table}`], 'all', em.getTransactionContext());
}

/** Whether another record of `table` already has this URL (chosen under the table's lock, see lockSeoUrls). */
export async function slugTaken(
  em: EntityManager,
  table: 'product' | 'collection',
  slug: string,
  exceptId = 0,
): Promise<boolean> {
  await lockSeoUrls(em, table);
  const rows = await em
    .getConnection()
    .execute<unknown[]>(
      `select 1 from ${table} where seo_url = ? and id <> ?`,
      [slug, exceptId],
      'all',
      em.getTransactionContext(),
    );
  return rows.length > 0;
}
