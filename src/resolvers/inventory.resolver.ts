import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, Info, Int, Mutation, Resolver, UseMiddleware } from 'type-graphql';
import { createShippingCarrier, createWarehouse, setInventoryLevel } from '../domain/stock-places.js';
import { inTransaction } from '../domain/transaction.js';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { readRecord } from '../reads/read-query.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

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
  @Mutation(() => InventoryLevel, { description: 'Sets the units of a variant held in a warehouse' })
  async setInventoryLevel(
    @Arg('warehouseId', () => Int, { description: 'Warehouse id' }) warehouseId: number,
    @Arg('variantId', () => Int, { description: 'Product variant id' }) variantId: number,
    @Arg('quantity', () => Int, { description: 'Units in stock, ≥ 0' }) quantity: number,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // Read back as any read is (its field resolvers take rows, whose references are ids).
    const level = await inTransaction(em, (tx) => setInventoryLevel(tx, warehouseId, variantId, quantity));
    return readRecord(em, info, 'InventoryLevel', level.id);
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
