import { iso31661, iso31662 } from 'iso-3166';
import type { PostalAddress } from '../entities/postal-address.embeddable.js';
import type { FieldError } from './errors.js';

const COUNTRIES = new Set(iso31661.map((c) => c.alpha2));
const SUBDIVISIONS = new Set(iso31662.map((s) => s.code));
const TEXT_LIMIT = 255;
const BLOCK_FIELDS = [
  'firstName',
  'lastName',
  'company',
  'street',
  'suite',
  'city',
  'country',
  'state',
  'zip',
] as const;

export type AddressBlockPatch = Partial<Record<(typeof BLOCK_FIELDS)[number], string | null>>;

/**
 * Merges a partial block into an address (omitted fields kept, null clears) and checks the result:
 * country is ISO 3166-1 alpha-2, state the subdivision part of an ISO 3166-2 code of that country.
 * Codes are stored upper-case. Errors name `${path}.country` etc.
 */
export function mergeAddressBlock(
  target: PostalAddress,
  patch: AddressBlockPatch,
  path: string,
  errors: FieldError[],
): void {
  for (const key of BLOCK_FIELDS) {
    const value = patch[key];
    if (value === undefined) continue;
    if (value !== null && value.length > TEXT_LIMIT) {
      errors.push({ field: `${path}.${key}`, message: `must be at most ${TEXT_LIMIT} characters` });
      continue;
    }
    target[key] = key === 'country' || key === 'state' ? value?.trim().toUpperCase() || null : value;
  }
  // A state belongs to its country: a new country sent without a state leaves no state of the old
  // one behind (it would be refused, though the client never sent it).
  if (
    patch.country !== undefined &&
    patch.state === undefined &&
    target.state &&
    !SUBDIVISIONS.has(`${target.country}-${target.state}`)
  )
    target.state = null;
  if (target.country && !COUNTRIES.has(target.country)) {
    errors.push({ field: `${path}.country`, message: `"${target.country}" is not an ISO 3166-1 alpha-2 country code` });
  } else if (target.state) {
    if (!target.country) errors.push({ field: `${path}.state`, message: 'a state needs a country' });
    else if (!SUBDIVISIONS.has(`${target.country}-${target.state}`)) {
      errors.push({
        field: `${path}.state`,
        message: `"${target.state}" is not an ISO 3166-2 subdivision of ${target.country}`,
      });
    }
  }
}
