import { Check, Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';

/**
 * One change to the units of a variant in a warehouse (docs/decisions.md#inventory-ledger),
 * written in the transaction of the change, whatever made it: a fulfilment, its deletion, a
 * restock, a set or an adjustment. For every level, its units are the sum of its movements'
 * deltas (the migration gave each existing level one `set` movement). Like events, movements keep
 * plain ids and no foreign keys: the history outlives a deleted variant, and writing one takes no
 * lock on the variant or warehouse row (a fulfilment holds its levels' locks, nothing more).
 */
@ObjectType({ description: 'A change to the units of a variant in a warehouse: by how much, why, and by whom' })
@Entity()
@Index({ properties: ['variantId', 'warehouseId', 'id'] })
@Index({ properties: ['warehouseId', 'id'] })
// The reasons of src/domain/inventory-reasons.ts (test/inventory-ledger.test.ts holds them equal).
@Check({
  name: 'inventory_movement_reason_valid',
  expression:
    "reason in ('fulfilment', 'fulfilment_deleted', 'restock', 'set', " +
    "'received', 'correction', 'damaged', 'cycle_count', 'other')",
})
@Check({ name: 'inventory_movement_quantity_after_non_negative', expression: 'quantity_after >= 0' })
export class InventoryMovement {
  @Field(() => Int, { description: 'Movement id, increasing in the order movements were written' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field(() => Int, { description: 'Product variant id' })
  @Property({ type: 'integer' })
  variantId!: number;

  @Field(() => Int, { description: 'Warehouse id' })
  @Property({ type: 'integer' })
  warehouseId!: number;

  @Field(() => Int, { description: 'Units added (positive) or taken (negative)' })
  @Property({ type: 'integer' })
  delta!: number;

  @Field(() => Int, { description: 'Units of the variant in the warehouse right after this movement' })
  @Property({ type: 'integer' })
  quantityAfter!: number;

  @Field({
    description:
      'Why: fulfilment, fulfilment_deleted, restock, set (by the service), or the reason of an adjustment ' +
      '(received, correction, damaged, cycle_count, other)',
  })
  @Property({ type: 'text' })
  reason!: string;

  @Field(() => String, {
    nullable: true,
    description:
      "What it belongs to: the caller's reference of an adjustment, or the record's REST path " +
      '(`orders/12/fulfilments/34`, `orders/12/restocks/5`); null when none was given',
  })
  @Property({ type: 'text', nullable: true })
  reference: string | null = null;

  /** The API token that made the change (null for the service itself: the migration's starting levels). */
  @Property({ type: 'integer', nullable: true })
  actorTokenId: number | null = null;

  /** That token's name at the time of the change. */
  @Property({ type: 'text', nullable: true })
  actorName: string | null = null;

  @Field(() => TimestampScalar, { description: 'When the change was made' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();
}

/** What a list of inventory movements sorts by (src/schema/list-fields.ts). */
export const inventoryMovementList = listFields(InventoryMovement, {
  id: { sort: true },
  createdAt: { sort: true },
});
