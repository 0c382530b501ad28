import { Arg, Int } from 'type-graphql';

/**
 * The optional `expectedVersion` argument of every write on a versioned record (Order, Customer,
 * Product, Collection: the types with a `version` field), for optimistic concurrency: the use
 * case compares it with the record's version under the row lock and refuses a stale one with
 * PRECONDITION_FAILED, nothing changed.
 *
 * A list, so REST's `If-Match` maps onto it exactly: several ETags mean "any of these", and an
 * If-Match that can never match (only weak tags) becomes `[]`. GraphQL coerces a single value to a
 * list, so clients simply write `expectedVersion: 7`. `record` names whose version it is
 * ("order" for the fulfilment and shipment writes under an order).
 */
export function ExpectedVersionArg(record: string) {
  return Arg('expectedVersion', () => [Int], {
    nullable: true,
    description:
      `Optimistic concurrency: the write goes ahead only while the ${record}'s ` +
      `\`version\` is one of these (one value is a list of one; ` +
      `REST's ETag "v7" is 7). Otherwise it is refused with PRECONDITION_FAILED and ` +
      `nothing changes. Omitted or null: no check`,
  });
}
