import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, Info, Int, Mutation, Resolver, UseMiddleware } from 'type-graphql';
import { adjustInventory, setInventoryLevel } from '../domain/inventory-adjustment.js';
import { createShippingCarrier, createWarehouse } from '../domain/stock-places.js';
import { inTransaction } from '../domain/transaction.js';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { readByIds, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { InventoryChange } from '../schema/inputs/inventory.inputs.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

const CHANGE_FROM_QUANTITY =
  'The units the caller believes are there now: when the level holds any other number, nothing changes ' +
  '(PRECONDITION_FAILED naming the units now). Null or left out: no check';

/** Warehouses, stock levels and carriers: the places goods are kept and sent by. */
@Resolver()
@UseMiddleware(inputGuard)
export class InventoryResolver {
  @Authorized('write_inventory')
  @Mutation(() => Warehouse, { description: 'Creates a warehouse' })
  async createWarehouse(
    @Arg('title', { description: 'Name of the warehouse' }) title: string,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => createWarehouse(tx, title));
    return readRecord(em, info, 'Warehouse', result.id);
  }

  @Authorized('write_inventory')
  @Mutation(() => InventoryLevel, {
    description: 'Sets the units of a variant held in a warehouse, recorded as a `set` movement of the difference',
  })
  async setInventoryLevel(
    @Arg('warehouseId', () => Int, { description: 'Warehouse id' }) warehouseId: number,
    @Arg('variantId', () => Int, { description: 'Product variant id' }) variantId: number,
    @Arg('quantity', () => Int, { description: 'Units in stock, ≥ 0' }) quantity: number,
    @Arg('changeFromQuantity', () => Int, { nullable: true, description: CHANGE_FROM_QUANTITY })
    changeFromQuantity: number | null | undefined,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // Read back as any read is (its field resolvers take rows, whose references are ids).
    const id = await inTransaction(em, (tx) =>
      setInventoryLevel(tx, principal, warehouseId, variantId, quantity, changeFromQuantity),
    );
    return readRecord(em, info, 'InventoryLevel', id);
  }

  @Authorized('write_inventory')
  @Mutation(() => [InventoryLevel], {
    description:
      'Changes units by deltas with a reason, all or none, each optionally checked against the units the caller ' +
      'believes are there (`changeFromQuantity`); one movement per level and one `inventory.adjusted` event. ' +
      'Answers the levels after the change, in the order of `changes`',
  })
  async adjustInventory(
    @Arg('changes', () => [InventoryChange], { description: `The levels to change, each once (at most 100)` })
    changes: InventoryChange[],
    @Arg('reason', { description: 'Why: received, correction, damaged, cycle_count or other' }) reason: string,
    @Arg('reference', () => String, {
      nullable: true,
      description: 'Your reference for it (a purchase order, a count sheet), at most 255 characters',
    })
    reference: string | null | undefined,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const ids = await inTransaction(em, (tx) => adjustInventory(tx, principal, changes, reason, reference));
    return readByIds(em, 'InventoryLevel', selectionOf(info), ids);
  }

  @Authorized('write_shipping')
  @Mutation(() => ShippingCarrier, { description: 'Creates a shipping carrier' })
  createShippingCarrier(
    @Arg('title', { description: 'Name of the carrier' }) title: string,
    @Arg('url', { description: 'Tracking URL prefix' }) url: string,
    @Ctx() { em }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => createShippingCarrier(tx, title, url));
  }
}
