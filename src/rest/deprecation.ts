import type { Context } from 'koa';
import type { FieldMap } from './fields.js';
import { askedFieldsOf } from './operations.js';
import { parseReadParams } from './query-params.js';
import type { RouteSpec } from './route-spec.js';

/**
 * A REST key on its way out (docs/operations.md#api-versioning): since when it is deprecated and
 * the day from which it may be gone (at least 90 days later), both `YYYY-MM-DD` (UTC), and what
 * to read instead. CHANGELOG.md lists it with the same dates; `npm test` holds the two together.
 */
export interface Deprecation {
  since: string;
  sunset: string;
  /** What a client reads instead (a key, or a sentence). */
  use: string;
}

/** The shortest deprecation period the API's policy allows (docs/operations.md#api-versioning). */
export const MIN_DEPRECATION_DAYS = 90;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A `YYYY-MM-DD` day as UTC midnight, or NaN. */
export function dayOf(text: string): number {
  return DATE.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
}

/** What is wrong with a deprecation's dates, or null (checked at start-up for every deprecated key). */
export function deprecationProblem({ since, sunset }: Deprecation): string | null {
  const from = dayOf(since);
  const to = dayOf(sunset);
  if (Number.isNaN(from) || Number.isNaN(to)) return `since and sunset must be YYYY-MM-DD days (${since}, ${sunset})`;
  if (to - from < MIN_DEPRECATION_DAYS * DAY_MS)
    return `its sunset ${sunset} is less than ${MIN_DEPRECATION_DAYS} days after ${since}`;
  return null;
}

/**
 * The deprecations a record map holds, by its top-level key: a key deprecated itself, or one whose
 * nested keys (sent whenever it is) hold one; the earliest of them stands for the key.
 */
function deprecatedKeys(map: FieldMap): Map<string, Deprecation> {
  const found = new Map<string, Deprecation>();
  const earliest = (a: Deprecation | undefined, b: Deprecation) => (a && dayOf(a.sunset) <= dayOf(b.sunset) ? a : b);
  const inside = (sub: FieldMap | undefined): Deprecation | undefined => {
    let first: Deprecation | undefined;
    for (const spec of Object.values(sub ?? {})) {
      if (spec.deprecated) first = earliest(first, spec.deprecated);
      const nested = inside(spec.sub);
      if (nested) first = earliest(first, nested);
    }
    return first;
  };
  for (const [key, spec] of Object.entries(map)) {
    const own = inside({ [key]: spec });
    if (own) found.set(key, own);
  }
  return found;
}

const byMap = new WeakMap<FieldMap, Map<string, Deprecation>>();
function cached(map: FieldMap): Map<string, Deprecation> {
  let keys = byMap.get(map);
  if (!keys) byMap.set(map, (keys = deprecatedKeys(map)));
  return keys;
}

/** `Deprecation` (RFC 9745: a structured-field date, `@` and Unix seconds) and `Sunset` (RFC 8594: an HTTP-date). */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(dayOf(deprecation.since) / 1000)}`,
    Sunset: new Date(dayOf(deprecation.sunset)).toUTCString(),
  };
}

/**
 * After a route answered: when the answer holds a deprecated key (the keys `fields` and `expand`
 * chose, or every key without them), the response says so with `Deprecation` and `Sunset` (of
 * the key whose sunset comes first), so a client learns it from the answers it already reads.
 * A route that answers no records (a position) or a refused request says nothing.
 */
export function announceDeprecations(ctx: Context, route: RouteSpec): void {
  if (route.kind === 'position' || ctx.status >= 400) return;
  const resource = route.resource;
  const fieldKeys = cached(resource.fields);
  const expandKeys = cached(resource.expand);
  if (!fieldKeys.size && !expandKeys.size) return;
  const { keys } = askedFieldsOf(resource, parseReadParams(ctx.query, resource));
  let first: Deprecation | undefined;
  for (const key of keys) {
    const deprecation = fieldKeys.get(key) ?? expandKeys.get(key);
    if (deprecation && (!first || dayOf(deprecation.sunset) < dayOf(first.sunset))) first = deprecation;
  }
  if (first) ctx.set(deprecationHeaders(first));
}
