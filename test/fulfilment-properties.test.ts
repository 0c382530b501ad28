// Property: any sequence of fulfil / ship / resize / delete / restock requests, accepted or
// refused, keeps quantity = not_fulfilled + fulfilled + shipped + restocked on every line, never
// makes stock negative, conserves stock, and leaves the order's status equal to its derivation.
import fc from 'fast-check';
import { startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder, setStock } from './support/orders.js';

let service: TestService;
let variants: { tracked: number; untracked: number };
beforeAll(async () => {
  service = await startTestService();
  variants = await pickVariants(service);
});
afterAll(() => service.stop());

type Command =
  | { kind: 'fulfil'; line: number; qty: number; warehouse: number }
  | { kind: 'ship'; f: number; qty: number | null }
  | { kind: 'resize'; f: number; line: number; qty: number }
  | { kind: 'deleteFulfilment'; f: number }
  | { kind: 'deleteShipment'; s: number }
  | { kind: 'restock'; line: number; qty: number; warehouse: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant('fulfil' as const),
    line: fc.nat(1),
    qty: fc.integer({ min: 0, max: 4 }),
    warehouse: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    kind: fc.constant('ship' as const),
    f: fc.nat(3),
    qty: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('resize' as const),
    f: fc.nat(3),
    line: fc.nat(1),
    qty: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({ kind: fc.constant('deleteFulfilment' as const), f: fc.nat(3) }),
  fc.record({ kind: fc.constant('deleteShipment' as const), s: fc.nat(3) }),
  fc.record({
    kind: fc.constant('restock' as const),
    line: fc.nat(1),
    qty: fc.integer({ min: 1, max: 2 }),
    warehouse: fc.integer({ min: 1, max: 2 }),
  }),
);

function derive(
  items: {
    status: { quantity: number; not_fulfilled: number; fulfilled: number; shipped: number; restocked: number };
  }[],
): number {
  const nf = items.reduce((n, i) => n + i.status.not_fulfilled, 0);
  const f = items.reduce((n, i) => n + i.status.fulfilled, 0);
  const s = items.reduce((n, i) => n + i.status.shipped, 0);
  const live = nf + f + s;
  if (live === 0) return 5;
  if (f + s === 0) return 0;
  if (s === 0) return nf > 0 ? 1 : 3;
  if (nf > 0) return 2;
  return s < live ? 4 : 5;
}

async function run(orderId: number, lines: number[], order: any, cmd: Command) {
  const api = (rest: string) => `/api/v1/orders/${orderId}${rest}`;
  const pick = <T>(list: T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined);
  switch (cmd.kind) {
    case 'fulfil':
      return service.send('POST', api('/fulfilments'), {
        items: [{ id: lines[cmd.line], quantity: cmd.qty, warehouse: cmd.warehouse }],
      });
    case 'ship': {
      const f = pick(order.fulfilments as any[], cmd.f);
      if (!f) return undefined;
      const items = cmd.qty === null ? undefined : [{ id: f.items[0].id, quantity: cmd.qty }];
      return service.send('POST', api('/shipments'), {
        data: { fulfilment_id: f.id, tracking_number: 'P', shipping_carrier: 1, ...(items ? { items } : {}) },
      });
    }
    case 'resize': {
      const f = pick(order.fulfilments as any[], cmd.f);
      return f
        ? service.send('PATCH', api(`/fulfilments/${f.id}`), { items: [{ id: lines[cmd.line], quantity: cmd.qty }] })
        : undefined;
    }
    case 'deleteFulfilment': {
      const f = pick(order.fulfilments as any[], cmd.f);
      return f ? service.send('DELETE', api(`/fulfilments/${f.id}`)) : undefined;
    }
    case 'deleteShipment': {
      const s = pick(order.shipments as any[], cmd.s);
      return s ? service.send('DELETE', api(`/shipments/${s.id}`)) : undefined;
    }
    case 'restock': {
      const res = await service.graphql(
        'mutation ($o: Int!, $i: RestockInput!) { restockOrderItems(orderId: $o, input: $i) { id } }',
        {
          o: orderId,
          i: { warehouse: cmd.warehouse, items: [{ id: lines[cmd.line], quantity: cmd.qty }] },
        },
      );
      const code = res.body.errors?.[0]?.extensions?.code;
      return { status: code === 'CONFLICT' ? 409 : code === 'BAD_USER_INPUT' ? 422 : code ? 500 : 200 };
    }
  }
}

it('keeps every invariant under random operation sequences', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 14 }), async (commands) => {
      await setStock(service, 1, variants.tracked, 6);
      await setStock(service, 2, variants.tracked, 3);
      let order = await placeOrder(service, [
        { variantId: variants.tracked, quantity: 4 },
        { variantId: variants.untracked, quantity: 3 },
      ]);
      const lines: number[] = order.items.map((i: any) => i.data.id);
      for (const cmd of commands) {
        const res = await run(order.id, lines, order, cmd);
        if (res) expect(res.status).toBeLessThan(500);
        order = (await service.get(`/api/v1/orders/${order.id}`)).body;
        for (const item of order.items) {
          const s = item.status;
          expect(s.quantity).toBe(s.not_fulfilled + s.fulfilled + s.shipped + s.restocked);
          expect(Math.min(s.not_fulfilled, s.fulfilled, s.shipped, s.restocked)).toBeGreaterThanOrEqual(0);
        }
        expect(order.status).toBe(derive(order.items));
        // Stock is conserved: what is in each warehouse plus what its fulfilments took, less what
        // was restocked into it, is what it started with.
        for (const [warehouse, initial] of [
          [1, 6],
          [2, 3],
        ]) {
          const [row] = await service.sql<{ quantity: number }>(
            'select quantity from inventory_level where warehouse_id = ? and variant_id = ?',
            [warehouse, variants.tracked],
          );
          expect(row.quantity).toBeGreaterThanOrEqual(0);
          const taken = order.fulfilments
            .filter((f: any) => f.warehouse === warehouse)
            .flatMap((f: any) => f.items)
            .filter((i: any) => i.id === lines[0])
            .reduce((n: number, i: any) => n + i.quantity, 0);
          const returned = order.restocks
            .filter((r: any) => r.warehouse === warehouse)
            .flatMap((r: any) => r.items)
            .filter((i: any) => i.id === lines[0])
            .reduce((n: number, i: any) => n + i.quantity, 0);
          expect(row.quantity + taken - returned).toBe(initial);
        }
      }
    }),
    { numRuns: 25, seed: 20261122 },
  );
}, 120_000);
