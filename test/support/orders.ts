import type { TestService } from './harness.js';

/** Creates an order through GraphQL for the given variants and returns its REST representation. */
export async function placeOrder(
  service: TestService,
  lines: { variantId: number; quantity: number }[],
  customerId = 1,
): Promise<any> {
  const res = await service.graphql('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', {
    input: { customerId, items: lines },
  });
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return (await service.get(`/api/v1/orders/${res.body.data.createOrder.id}`)).body;
}

/** A variant of a product that tracks inventory, and one of a product that does not. */
export async function pickVariants(service: TestService): Promise<{ tracked: number; untracked: number }> {
  const [tracked] = await service.sql<{ id: number }>(
    'select v.id from product_variant v join product p on p.id = v.product_id ' +
      'where p.track_inventory order by v.id limit 1',
  );
  const [untracked] = await service.sql<{ id: number }>(
    'select v.id from product_variant v join product p on p.id = v.product_id ' +
      'where not p.track_inventory order by v.id limit 1',
  );
  return { tracked: tracked.id, untracked: untracked.id };
}

export async function stockOf(service: TestService, warehouseId: number, variantId: number): Promise<number> {
  const [row] = await service.sql<{ quantity: number }>(
    'select quantity from inventory_level where warehouse_id = ? and variant_id = ?',
    [warehouseId, variantId],
  );
  return row?.quantity ?? 0;
}

export async function setStock(
  service: TestService,
  warehouseId: number,
  variantId: number,
  quantity: number,
): Promise<void> {
  const res = await service.graphql(
    'mutation ($w: Int!, $v: Int!, $q: Int!) ' +
      '{ setInventoryLevel(warehouseId: $w, variantId: $v, quantity: $q) { quantity } }',
    {
      w: warehouseId,
      v: variantId,
      q: quantity,
    },
  );
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
}

export const countersOf = (order: any) =>
  Object.fromEntries(order.items.map((i: any) => [i.data.id, i.status])) as Record<
    number,
    { quantity: number; not_fulfilled: number; fulfilled: number; shipped: number; restocked: number }
  >;
