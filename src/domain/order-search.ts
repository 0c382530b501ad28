import { type FilterQuery, raw } from '@mikro-orm/postgresql';
import type { Order } from '../entities/order.entity.js';
import type { OrderFilter } from '../schema/inputs/order.inputs.js';
import { idPartOf, type OrderNumberFormat } from './order-number.js';
import { rangeCondition } from './range-condition.js';
import { containsPattern } from './text-match.js';

type Condition = Record<string, unknown>;

const TEXT: [keyof OrderFilter, string][] = [
  ['email', 'email'],
  ['shippingDescription', 'shippingDescription'],
  ['ip', 'ip'],
  ['paymentMethod', 'paymentType'],
  ['last4', 'paymentLast4'],
  ['notes', 'notes'],
];
const RANGES: [keyof OrderFilter, string][] = [
  ['shippingPrice', 'shippingPrice'],
  ['tax', 'tax'],
  ['cartPrice', 'cartPrice'],
  ['total', 'total'],
  ['refunded', 'refunded'],
  ['orderDate', 'orderDate'],
  ['updatedAt', 'updatedAt'],
];
/** Any-of lists matched exactly: flags and the two status enums (numeric, as stored). */
const FLAGS: [keyof OrderFilter, string][] = [
  ['ipFail', 'ipFail'],
  ['addressFail', 'addressFail'],
  ['zipFail', 'zipFail'],
  ['cvcFail', 'cvcFail'],
  ['refundPossible', 'refundPossible'],
  ['status', 'status'],
  ['paid', 'paid'],
];

const anyOf = (values: Condition[]): Condition => ({ $or: values });

/**
 * The order search (docs/decisions.md#search-filters) as one WHERE on the orders table (cart price and status are
 * columns, so every filter is plain SQL on one row). `displayNumber` ignores the store's display
 * prefix and suffix; `fullName` matches "first last" of the customer, the shipping or the billing
 * address. Raw fragments are fixed SQL; every value is a bound parameter.
 */
export function orderWhere(filter: OrderFilter | undefined, display: OrderNumberFormat): FilterQuery<Order> {
  if (!filter) return {};
  const all: Condition[] = [];
  if (filter.id) all.push({ id: { $in: filter.id } });
  if (filter.customerId) all.push({ customer: { $in: filter.customerId } });
  for (const [key, column] of TEXT) {
    const values = filter[key] as string[] | undefined;
    if (values) all.push(anyOf(values.map((v) => ({ [column]: { $ilike: containsPattern(v) } }))));
  }
  for (const [key, column] of RANGES) {
    const range = filter[key] as Parameters<typeof rangeCondition>[0] | undefined;
    if (range) all.push({ [column]: rangeCondition(range) });
  }
  for (const [key, column] of FLAGS) {
    const values = filter[key] as (boolean | number)[] | undefined;
    if (values) all.push({ [column]: { $in: values } });
  }
  if (filter.displayNumber) {
    all.push(
      anyOf(
        filter.displayNumber.map((v) => {
          const number = idPartOf(v, display);
          return { [raw((alias) => `${alias}.id::text`)]: { $ilike: containsPattern(number) } };
        }),
      ),
    );
  }
  if (filter.fullName) {
    const names = filter.fullName.map((n) => containsPattern(n.trim().replace(/\s+/g, ' ')));
    all.push(
      anyOf(
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
      ),
    );
  }
  return (all.length ? { $and: all } : {}) as FilterQuery<Order>;
}
