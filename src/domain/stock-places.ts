import type { EntityManager } from '@mikro-orm/postgresql';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { type FieldError, ValidationError } from './errors.js';

function title(value: string, errors: FieldError[]): string {
  const trimmed = value.trim();
  if (!trimmed) errors.push({ field: 'title', message: 'must not be empty' });
  if (trimmed.length > 255) errors.push({ field: 'title', message: 'must be at most 255 characters' });
  return trimmed;
}

export async function createWarehouse(em: EntityManager, name: string): Promise<Warehouse> {
  const errors: FieldError[] = [];
  const warehouse = Object.assign(new Warehouse(), { title: title(name, errors) });
  if (errors.length) throw new ValidationError(errors);
  await em.persist(warehouse).flush();
  return warehouse;
}

export async function createShippingCarrier(em: EntityManager, name: string, url: string): Promise<ShippingCarrier> {
  const errors: FieldError[] = [];
  const carrier = Object.assign(new ShippingCarrier(), { title: title(name, errors), url: url.trim() });
  if (!URL.canParse(carrier.url) || !/^https?:/.test(carrier.url))
    errors.push({ field: 'url', message: 'must be an http(s) URL' });
  if (errors.length) throw new ValidationError(errors);
  await em.persist(carrier).flush();
  return carrier;
}

/** Sets (not adds) the stock of one variant in one warehouse. */
export async function setInventoryLevel(
  em: EntityManager,
  warehouseId: number,
  variantId: number,
  quantity: number,
): Promise<InventoryLevel> {
  const errors: FieldError[] = [];
  if (!Number.isInteger(quantity) || quantity < 0 || quantity > 1_000_000_000) {
    errors.push({ field: 'quantity', message: 'must be a whole number from 0 to 1000000000' });
  }
  const [warehouse, variant] = await Promise.all([
    em.findOne(Warehouse, { id: warehouseId }),
    em.findOne(ProductVariant, { id: variantId }),
  ]);
  if (!warehouse) errors.push({ field: 'warehouseId', message: `warehouse ${warehouseId} does not exist` });
  if (!variant) errors.push({ field: 'variantId', message: `variant ${variantId} does not exist` });
  if (errors.length) throw new ValidationError(errors);
  await em.getConnection().execute(
    `insert into inventory_level (warehouse_id, variant_id, quantity) values (?, ?, ?)
     on conflict (warehouse_id, variant_id) do update set quantity = excluded.quantity`,
    [warehouseId, variantId, quantity],
    'run',
    em.getTransactionContext(),
  );
  return em.findOneOrFail(InventoryLevel, { warehouse: warehouseId, variant: variantId }, { refresh: true });
}
