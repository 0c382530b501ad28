import { POSITIVE_INT, parseInteger } from './integer-param.js';

/**
 * ETags are REST's view of a record's `version` (docs/decisions.md#conditional-writes): strong tags
 * `"v<version>"`, so `fields`/`expand` never change them. The comparison itself is the domain's
 * (under the row lock): `If-Match` reaches it as the mutation's `expectedVersion` argument.
 */
/** The strong ETag of a record version. */
export const etagOf = (version: number) => `"v${version}"`;

/**
 * The entity tags of an If-Match / If-None-Match header ('*' for any): strong tags only, or also
 * weak ones as the strong tag they stand for (`W/"v5"` → `"v5"`).
 */
function entityTags(header: string, weak: boolean): string[] | '*' {
  if (header.trim() === '*') return '*';
  return header
    .split(',')
    .map((t) => t.trim())
    .map((t) => (weak && t.startsWith('W/') ? t.slice(2) : t))
    .filter((t) => t.startsWith('"'));
}

/**
 * If-None-Match: whether the header names this ETag (or is `*`), by the weak comparison RFC 9110
 * (section 13.1.2) asks for: `W/"v5"` matches `"v5"` (a proxy that compresses answers weakens their tags).
 */
export function matches(header: string, etag: string): boolean {
  if (!header) return false;
  const tags = entityTags(header, true);
  return tags === '*' || tags.includes(etag);
}

/**
 * If-Match as the `expectedVersion` argument: undefined when absent or `*` (any version), else
 * the versions its tags name. Tags that can never be current (weak, not of our form, out of range)
 * drop out, so a header of only those becomes `[]`, which matches nothing: a 412, as before.
 */
export function expectedVersionOf(ifMatch: string): number[] | undefined {
  if (!ifMatch) return undefined;
  // If-Match compares strongly (RFC 9110, section 13.1.1): a weak tag never matches.
  const tags = entityTags(ifMatch, false);
  if (tags === '*') return undefined;
  return tags.flatMap((tag) => {
    const digits = /^"v(\d+)"$/.exec(tag)?.[1];
    const version = digits === undefined ? undefined : parseInteger(digits, POSITIVE_INT);
    return version !== undefined && etagOf(version) === tag ? [version] : [];
  });
}
