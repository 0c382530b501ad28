import { type FilterQuery, raw } from '@mikro-orm/postgresql';
import { type Order, type OrderFilter, orderList } from '../entities/order.entity.js';
import { allOf, filterConditions } from './listing.js';
import { idPartOf, type OrderNumberFormat } from './order-number.js';
import { containsPattern } from './text-match.js';

type Condition = Record<string, unknown>;

const anyOf = (values: Condition[]): Condition => ({ $or: values });

/** Any of the display numbers, the store's prefix and suffix ignored: the id as text. */
function displayNumberMatch(numbers: string[], display: OrderNumberFormat): Condition {
  return anyOf(
    numbers.map((v) => {
      const number = idPartOf(v, display);
      return { [raw((alias) => `${alias}.id::text`)]: { $ilike: containsPattern(number) } };
    }),
  );
}

/** Any of the names as "first last" of the customer, the shipping or the billing address. */
function fullNameMatch(fullNames: string[]): Condition {
  const names = fullNames.map((n) => containsPattern(n.trim().replace(/\s+/g, ' ')));
  return anyOf(
    names.flatMap((pattern) => [
      {
        [raw((alias) => `concat_ws(' ', ${alias}.shipping_first_name, ${alias}.shipping_last_name)`)]: {
          $ilike: pattern,
        },
      },
      {
        [raw((alias) => `concat_ws(' ', ${alias}.billing_first_name, ${alias}.billing_last_name)`)]: {
          $ilike: pattern,
        },
      },
      {
        [raw(
          (alias) =>
            `(select concat_ws(' ', c.first_name, c.last_name) from customer c where c.id = ${alias}.customer_id)`,
        )]: { $ilike: pattern },
      },
    ]),
  );
}

/**
 * The order search (docs/decisions.md#search-filters) as one WHERE on the orders table (cart price and status are
 * columns, so every filter is plain SQL on one row). Each filter matches as `orderList` declares it
 * (src/entities/order.entity.ts), but for the two written here and the metafields' (`metafields`, made by
 * metafield-search.ts). Raw fragments are fixed SQL; every
 * value is a bound parameter.
 */
export function orderWhere(
  filter: OrderFilter | undefined,
  display: OrderNumberFormat,
  metafields?: Condition,
): FilterQuery<Order> {
  const all = filterConditions(orderList, filter, {
    displayNumber: (numbers, all) => all.push(displayNumberMatch(numbers, display)),
    fullName: (names, all) => all.push(fullNameMatch(names)),
    // Made from the definitions beforehand (metafield-search.ts `metafieldCondition`).
    metafields: (_, all) => {
      if (metafields) all.push(metafields);
    },
  });
  return allOf(all) as FilterQuery<Order>;
}
