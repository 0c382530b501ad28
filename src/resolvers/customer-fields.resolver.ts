import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { CustomerAddress } from '../entities/customer-address.entity.js';
import { CustomerPaymentMethod } from '../entities/customer-payment-method.entity.js';
import { Customer } from '../entities/customer.entity.js';
import { loaded, RowProperty, type ReadRow } from '../reads/read-model.js';
import { CustomerStatistics } from '../schema/types/customer-statistics.type.js';

/** A customer's relations and derived figures, aggregated into the customer's statement by the read model. */
@Resolver(() => Customer)
export class CustomerFieldsResolver {
  @RowProperty()
  @FieldResolver(() => [CustomerAddress], { description: 'The first is the primary address' })
  addresses(@Root() customer: ReadRow<Customer>): CustomerAddress[] {
    return loaded(customer, 'addresses');
  }

  @RowProperty()
  @FieldResolver(() => [CustomerPaymentMethod], { description: 'Payment methods the customer has used' })
  paymentMethods(@Root() customer: ReadRow<Customer>): CustomerPaymentMethod[] {
    return loaded(customer, 'paymentMethods');
  }

  @FieldResolver(() => CustomerStatistics, { description: 'Order count, lifetime spend and last purchase' })
  statistics(@Root() customer: ReadRow<Customer>): CustomerStatistics {
    return { lastPurchase: customer.lastPurchase, orderCount: customer.orderCount, lifetimeSpent: customer.lifetimeSpent };
  }

  @RowProperty()
  @FieldResolver(() => [Int], { description: "Ids of the customer's orders, oldest first" })
  orderIds(@Root() customer: ReadRow<Customer>): number[] {
    return loaded(customer, 'orderIds');
  }

  @RowProperty()
  @FieldResolver(() => [String], { description: 'Current tags of every product the customer bought, distinct, sorted' })
  tags(@Root() customer: ReadRow<Customer>): string[] {
    return loaded(customer, 'tags');
  }
}
