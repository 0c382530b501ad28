import { registerEnumType } from 'type-graphql';

/** An order's fulfilment status as stored (the spec's integers 0–5); GraphQL shows the names. */
export enum FulfilmentStatus {
  NOT_FULFILLED = 0,
  PARTIALLY_FULFILLED = 1,
  PARTIALLY_FULFILLED_AND_SHIPPED = 2,
  FULFILLED = 3,
  PARTIALLY_SHIPPED = 4,
  SHIPPED = 5,
}

/** An order's payment status as stored (the spec's integers); GraphQL shows the names. */
export enum PaymentStatus {
  FULLY_REFUNDED = -2,
  PARTIALLY_REFUNDED = -1,
  NOT_PAID = 0,
  PAID = 1,
}

/**
 * The order's two status columns as GraphQL enums (docs/decisions.md#graphql-names-and-types). The
 * database and REST keep the spec's integers: the enums are numeric, so a stored 5 is served as
 * `SHIPPED` and back.
 */
registerEnumType(FulfilmentStatus, {
  name: 'FulfilmentStatus',
  description: "Where an order's units are, derived from the line item counters (REST: the integer in brackets)",
  valuesConfig: {
    NOT_FULFILLED: { description: 'Nothing sent to fulfilment or shipped (0)' },
    PARTIALLY_FULFILLED: { description: 'Some units sent to fulfilment, not all, none shipped (1)' },
    PARTIALLY_FULFILLED_AND_SHIPPED: {
      description: 'Some units shipped while others are not yet sent to fulfilment (2)',
    },
    FULFILLED: { description: 'Every unit sent to fulfilment, none shipped (3)' },
    PARTIALLY_SHIPPED: { description: 'Every unit fulfilled or shipped, some not shipped yet (4)' },
    SHIPPED: { description: 'Every unit shipped (or restocked) (5)' },
  },
});

registerEnumType(PaymentStatus, {
  name: 'PaymentStatus',
  description: 'Whether an order is paid or refunded (REST: the integer in brackets)',
  valuesConfig: {
    FULLY_REFUNDED: { description: 'Paid, then refunded in full (-2)' },
    PARTIALLY_REFUNDED: { description: 'Paid, then refunded in part (-1)' },
    NOT_PAID: { description: 'Not paid (0)' },
    PAID: { description: 'Paid (1)' },
  },
});
