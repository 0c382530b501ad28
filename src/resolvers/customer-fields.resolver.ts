import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Customer } from '../entities/customer.entity.js';
import { Computed, Projects } from '../reads/field-reads.js';
import { type Projection, projectRow } from '../reads/projection.js';
import type { ReadRow } from '../reads/read-row.js';
import { CustomerStatistics } from '../schema/types/customer-statistics.type.js';

/** The figures are the customer's own columns, kept by the order transactions. */
const STATISTICS = {
  fields: { lastPurchase: 'lastPurchase', orderCount: 'orderCount', lifetimeSpent: 'lifetimeSpent' },
} satisfies Projection;

/** A customer's derived figures; its addresses and payment methods are the entity's relations. */
@Resolver(() => Customer)
export class CustomerFieldsResolver {
  @Projects(STATISTICS)
  @FieldResolver(() => CustomerStatistics, { description: 'Order count, lifetime spend and last purchase' })
  statistics(@Root() customer: ReadRow<Customer>): CustomerStatistics {
    return projectRow(customer, STATISTICS);
  }

  @Computed({
    kind: 'json',
    sql: (p) => `coalesce((select json_agg(co.id order by co.id) from orders co where co.customer_id = ${p}.id),
      '[]'::json)`,
  })
  @FieldResolver(() => [Int], { description: "Ids of the customer's orders, oldest first" })
  orderIds(@Root() customer: ReadRow<Customer, { orderIds: number[] }>): number[] {
    return customer.orderIds;
  }

  // The current tags of every product the customer bought (docs/decisions.md#customers), distinct and sorted.
  @Computed({
    kind: 'json',
    sql: (p) => `coalesce((select json_agg(distinct ct.tag order by ct.tag)
      from orders co join line_item cli on cli.order_id = co.id join product cp on cp.id = cli.product_id
      cross join lateral unnest(cp.tags) as ct(tag) where co.customer_id = ${p}.id), '[]'::json)`,
  })
  @FieldResolver(() => [String], { description: 'Current tags of every product the customer bought, distinct, sorted' })
  tags(@Root() customer: ReadRow<Customer, { tags: string[] }>): string[] {
    return customer.tags;
  }
}
