import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { CustomerAddress } from '../entities/customer-address.entity.js';
import { CustomerPaymentMethod } from '../entities/customer-payment-method.entity.js';
import { Customer } from '../entities/customer.entity.js';
import { Order } from '../entities/order.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import { CustomerStatistics } from '../schema/types/customer-statistics.type.js';

/** A customer's relations and derived figures, each one batched query for the whole page. */
@Resolver(() => Customer)
export class CustomerFieldsResolver {
  @FieldResolver(() => [CustomerAddress], { description: 'the first is the primary address' })
  addresses(@Root() customer: Customer, @Ctx() { loaders }: GraphQLContext) {
    return loaders
      .children(
        'customer.addresses',
        (em, ids) => em.find(CustomerAddress, { customer: { $in: ids } }, { orderBy: [{ customer: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (a) => a.customer.id,
      )
      .load(customer.id);
  }

  @FieldResolver(() => [CustomerPaymentMethod])
  paymentMethods(@Root() customer: Customer, @Ctx() { loaders }: GraphQLContext) {
    return loaders
      .children(
        'customer.paymentMethods',
        (em, ids) => em.find(CustomerPaymentMethod, { customer: { $in: ids } }, { orderBy: [{ customer: 'asc' }, { id: 'asc' }] }),
        (m) => m.customer.id,
      )
      .load(customer.id);
  }

  @FieldResolver(() => CustomerStatistics)
  statistics(@Root() customer: Customer): CustomerStatistics {
    return { lastPurchase: customer.lastPurchase, orderCount: customer.orderCount, lifetimeSpent: customer.lifetimeSpent };
  }

  @FieldResolver(() => [Int], { description: "ids of the customer's orders, oldest first" })
  async orderIds(@Root() customer: Customer, @Ctx() { loaders }: GraphQLContext): Promise<number[]> {
    const orders = await loaders
      .children(
        'customer.orderIds',
        (em, ids) => em.find(Order, { customer: { $in: ids } }, { fields: ['id', 'customer'], orderBy: [{ customer: 'asc' }, { id: 'asc' }] }),
        (o) => o.customer.id,
      )
      .load(customer.id);
    return orders.map((o) => o.id);
  }

  @FieldResolver(() => [String], { description: 'current tags of every product the customer bought, distinct, sorted' })
  async tags(@Root() customer: Customer, @Ctx() { loaders }: GraphQLContext): Promise<string[]> {
    const rows = await loaders
      .children<{ customer_id: number; tag: string }>(
        'customer.tags',
        (em, ids) =>
          em.getConnection().execute(
            `select distinct o.customer_id, t.tag
             from orders o join line_item li on li.order_id = o.id join product p on p.id = li.product_id
             cross join lateral unnest(p.tags) as t(tag)
             where o.customer_id in (${ids.map(() => '?').join(', ')})
             order by o.customer_id, t.tag`,
            ids,
          ),
        (row) => row.customer_id,
      )
      .load(customer.id);
    return rows.map((row) => row.tag);
  }
}
