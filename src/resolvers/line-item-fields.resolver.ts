import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { LineItem } from '../entities/line-item.entity.js';
import { Reads } from '../reads/field-reads.js';
import type { ReadRow } from '../reads/read-row.js';
import { LineItemCounters, LineItemVariant } from './order-parts.type.js';

@Resolver(() => LineItem)
export class LineItemFieldsResolver {
  @Reads('productRef')
  @FieldResolver(() => Int, { description: 'The product bought (kept even if the product was deleted since)' })
  productId(@Root() item: ReadRow<LineItem>): number {
    return item.productRef;
  }

  @Reads('variantRef', 'variantValues')
  @FieldResolver(() => LineItemVariant, { description: 'The variant bought' })
  variant(@Root() item: ReadRow<LineItem>): LineItemVariant {
    return { id: item.variantRef, variant: item.variantValues };
  }

  @Reads('quantity', 'notFulfilled', 'fulfilled', 'shipped', 'restocked')
  @FieldResolver(() => LineItemCounters, { description: 'Where the units of this line are now' })
  counters(@Root() item: ReadRow<LineItem>): LineItemCounters {
    return {
      quantity: item.quantity,
      notFulfilled: item.notFulfilled,
      fulfilled: item.fulfilled,
      shipped: item.shipped,
      restocked: item.restocked,
    };
  }
}
