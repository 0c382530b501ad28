import { Field, Int, ObjectType } from 'type-graphql';
import { DecimalScalar } from '../scalars/decimal.scalar.js';
import { TimestampScalar } from '../scalars/timestamp.scalar.js';

/** Figures derived from a customer's orders, kept in columns by the order transactions. */
@ObjectType({ description: "Figures over a customer's orders" })
export class CustomerStatistics {
  @Field(() => TimestampScalar, { nullable: true, description: 'Date of the last order' })
  /** As the read path gives it: the timestamp's ISO text (the scalar serialises either). */
  lastPurchase!: string | Date | null;

  @Field(() => Int, { description: 'Number of orders' })
  orderCount!: number;

  @Field(() => DecimalScalar, { description: 'Σ(total − refunded) over paid orders' })
  lifetimeSpent!: string;
}
