import type { FilterQuery } from '@mikro-orm/postgresql';
import type { Customer } from '../entities/customer.entity.js';
import type { AddressBlockFilter, CustomerFilter } from '../schema/inputs/customer.inputs.js';
import { rangeCondition } from './range-condition.js';
import { caseInsensitiveLike } from './text-fold.js';
import { containsPattern } from './text-match.js';

type Condition = Record<string, unknown>;

/** `column` contains any of the strings, case-insensitively (as `$or` of the property). */
function anyText(path: string[], values: string[]): Condition {
  const nest = (value: unknown) => path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Condition;
  return { $or: values.map((v) => nest({ $ilike: containsPattern(v) })) };
}

/**
 * `column` (one of the customer's own text columns) contains any of the strings, case-insensitively,
 * searched on its stored lower-case copy `<column>Folded` (domain/text-fold.ts).
 */
function anyFoldedText(column: 'email' | 'firstName' | 'lastName', values: string[]): Condition {
  return { $or: values.map((v) => caseInsensitiveLike(column, `${column}Folded`, containsPattern(v))) };
}

function blockConditions(block: 'shipping' | 'billing', filter: AddressBlockFilter | undefined): Condition[] {
  return Object.entries(filter ?? {})
    .filter(([, values]) => values)
    .map(([key, values]) => anyText([block, key], values as string[]));
}

/**
 * The customer search (docs/decisions.md#search-filters) as one WHERE: substring text, any-of
 * lists, ranges. Address conditions must all hold on one and the same address (an EXISTS per
 * customer, no row fan-out).
 */
export function customerWhere(filter: CustomerFilter | undefined): FilterQuery<Customer> {
  if (!filter) return {};
  const all: Condition[] = [];
  for (const key of ['email', 'firstName', 'lastName'] as const) {
    const values = filter[key];
    if (values) all.push(anyFoldedText(key, values));
  }
  if (filter.notes) all.push(anyText(['notes'], filter.notes));
  const address: Condition[] = [
    ...blockConditions('shipping', filter.shipping),
    ...blockConditions('billing', filter.billing),
  ];
  if (filter.phone) address.push(anyText(['phone'], filter.phone));
  if (filter.shippingCountry) address.push(anyText(['shipping', 'country'], filter.shippingCountry));
  if (address.length) all.push({ addresses: { $some: { $and: address } } });
  if (filter.orders) all.push({ orders: { $some: { id: { $in: filter.orders } } } });
  if (filter.orderCount) all.push({ orderCount: rangeCondition(filter.orderCount) });
  return (all.length ? { $and: all } : {}) as FilterQuery<Customer>;
}
