import type { FilterQuery } from '@mikro-orm/postgresql';
import { type Customer, type CustomerFilter, customerList } from '../entities/customer.entity.js';
import type { AddressBlockFilter } from '../schema/inputs/customer.inputs.js';
import { allOf, filterConditions } from './listing.js';
import { containsPattern } from './text-match.js';

type Condition = Record<string, unknown>;

/** `column` contains any of the strings, case-insensitively (as `$or` of the property). */
function anyText(path: string[], values: string[]): Condition {
  const nest = (value: unknown) => path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Condition;
  return { $or: values.map((v) => nest({ $ilike: containsPattern(v) })) };
}

function blockConditions(block: 'shipping' | 'billing', filter: AddressBlockFilter): Condition[] {
  return Object.entries(filter)
    .filter(([, values]) => values)
    .map(([key, values]) => anyText([block, key], values as string[]));
}

/**
 * The customer search (docs/decisions.md#search-filters) as one WHERE: substring text, any-of
 * lists, ranges, each as `customerList` declares it (src/entities/customer.entity.ts). The address
 * and order filters are written here: address conditions must all hold on one and the same address
 * (an EXISTS per customer, no row fan-out).
 */
export function customerWhere(filter: CustomerFilter | undefined, metafields?: Condition): FilterQuery<Customer> {
  const address: Condition[] = [];
  const all = filterConditions(customerList, filter, {
    phone: (values) => address.push(anyText(['phone'], values)),
    shipping: (block) => address.push(...blockConditions('shipping', block)),
    billing: (block) => address.push(...blockConditions('billing', block)),
    shippingCountry: (values) => address.push(anyText(['shipping', 'country'], values)),
    orders: (ids, all) => all.push({ orders: { $some: { id: { $in: ids } } } }),
    // Made from the definitions beforehand (metafield-search.ts `metafieldCondition`).
    metafields: (_, all) => {
      if (metafields) all.push(metafields);
    },
  });
  if (address.length) all.push({ addresses: { $some: { $and: address } } });
  return allOf(all) as FilterQuery<Customer>;
}
