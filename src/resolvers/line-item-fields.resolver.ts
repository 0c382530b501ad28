import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { LineItem } from '../entities/line-item.entity.js';
import { Projects } from '../reads/field-reads.js';
import { type Projection, projectRow } from '../reads/projection.js';
import type { ReadRow } from '../reads/read-row.js';
import { LineItemCounters, LineItemVariant } from './order-parts.type.js';

/** The variant as it was bought (its id and option values at order time). */
const VARIANT = { fields: { id: 'variantRef', variant: 'variantValues' } } satisfies Projection;

/** The counters are the line's own columns under the same names. */
const COUNTERS = {
  fields: {
    quantity: 'quantity',
    notFulfilled: 'notFulfilled',
    fulfilled: 'fulfilled',
    shipped: 'shipped',
    restocked: 'restocked',
  },
} satisfies Projection;

@Resolver(() => LineItem)
export class LineItemFieldsResolver {
  @Projects('productRef')
  @FieldResolver(() => Int, { description: 'The product bought (kept even if the product was deleted since)' })
  productId(@Root() item: ReadRow<LineItem>): number {
    return projectRow(item, 'productRef');
  }

  @Projects(VARIANT)
  @FieldResolver(() => LineItemVariant, { description: 'The variant bought' })
  variant(@Root() item: ReadRow<LineItem>): LineItemVariant {
    return projectRow(item, VARIANT);
  }

  @Projects(COUNTERS)
  @FieldResolver(() => LineItemCounters, { description: 'Where the units of this line are now' })
  counters(@Root() item: ReadRow<LineItem>): LineItemCounters {
    return projectRow(item, COUNTERS);
  }
}
