// The inventory ledger under concurrency (docs/decisions.md#inventory-ledger): two server processes
// on one database take concurrent fulfilments, fulfilment deletions, restocks, adjustments and sets
// on the same levels, the adjustments crossing them in every order. Afterwards, for every level,
// its units are the sum of its movements' deltas and never below zero; the movements of each kind
// agree with the records that made them; and no request was answered 5xx, PostgreSQL counting no
// deadlock. The stock-taking requests lock levels in one order (warehouse, variant), whatever order a
// request names them in. Bounded: a fixed number of operations, a fixed concurrency, a time limit.
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { placeOrder } from './support/orders.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'sk_inventory_race_admin_token_0123456789';
const OPERATIONS = 240;
const CONCURRENCY = 12;
const WAREHOUSES = [1, 2];

let service: TestService;
let servers: ServerProcess[] = [];
let variants: number[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  const url = await createDatabase();
  service = await startTestService({ databaseUrl: url });
  const rows = await service.sql<{ id: number }>(
    'select v.id from product_variant v join product p on p.id = v.product_id where p.track_inventory ' +
      'order by v.id limit 3',
  );
  variants = rows.map((r) => r.id);
  const env = { RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '0' };
  servers = await Promise.all([startServerProcess(url, ADMIN, env), startServerProcess(url, ADMIN, env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await Promise.all(servers.map((s) => s.stop()));
  await service.stop();
}, 60_000);

/** A deterministic sequence (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)],
  };
}

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

interface Line {
  order: number;
  line: number;
  variant: number;
}

const sumBy = async (sql: string, params: unknown[] = []) =>
  new Map(
    (await service.sql<{ w: number; v: number; n: number }>(sql, params)).map((r) => [`${r.w}:${r.v}`, Number(r.n)]),
  );

/** The next result of a subscription, or a failure after `ms`. */
async function first(iterator: AsyncIterator<any>, ms = 10_000): Promise<any> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  const next = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
  if (next === 'timeout') throw new Error(`no result within ${ms} ms`);
  return next.value;
}

it('an adjustment made through B reaches a read_inventory subscriber on A', async () => {
  const made = await call(servers[0], 'POST', '/graphql', {
    query: 'mutation { createApiToken(name: "stock app", scopes: ["read_inventory"]) { secret } }',
  });
  const secret = made.body.data.createApiToken.secret;
  const [{ last }] = await service.sql<{ last: number }>('select coalesce(max(id), 0) as last from event');
  const subscriber = createClient({
    url: `${servers[0].url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${secret}` },
    retryAttempts: 0,
  });
  clients.push(subscriber);
  const live = subscriber.iterate({
    query: 'subscription ($after: Int) { events(after: $after, types: ["inventory.*"]) { type data } }',
    variables: { after: last },
  });
  const res = await call(servers[1], 'POST', '/api/v1/inventory-levels/adjustments', {
    reason: 'received',
    reference: 'over B',
    changes: [{ variant_id: variants[0], warehouse_id: 1, delta: 1 }],
  });
  expect(res.status).toBe(200);
  const got = await first(live);
  expect(got.errors).toBeUndefined();
  expect(got.data.events).toMatchObject({
    type: 'inventory.adjusted',
    data: { reason: 'received', reference: 'over B' },
  });
  await live.return?.();
}, 30_000);

const RACE =
  'fulfilments, deletions, restocks and crossing adjustments on two processes: units = Σ deltas, ≥ 0, no 5xx';
it(RACE, async () => {
  const rng = random(40);
  for (const w of WAREHOUSES)
    for (const v of variants) {
      const set = await service.graphql(
        'mutation ($w: Int!, $v: Int!) { setInventoryLevel(warehouseId: $w, variantId: $v, quantity: 12) { id } }',
        { w, v },
      );
      expect(set.body.errors).toBeUndefined();
    }
  // Orders with a line of each variant; half of them get 2 units of each shipped first, to restock later.
  const lines: Line[] = [];
  const shipped: Line[] = [];
  for (let i = 0; i < 8; i++) {
    const order = await placeOrder(
      service,
      variants.map((variantId) => ({ variantId, quantity: 30 })),
    );
    const mine = order.items.map((item: any) => ({
      order: order.id,
      line: item.data.id,
      variant: item.data.variant.id,
    }));
    lines.push(...mine);
    if (i % 2) continue;
    const made = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, {
      items: mine.map((l: Line) => ({ id: l.line, quantity: 2, warehouse: 1 })),
    });
    expect(made.status).toBe(201);
    const ship = await service.send('POST', `/api/v1/orders/${order.id}/shipments`, {
      data: { fulfilment_id: made.body.fulfilments[0].id, tracking_number: `R${i}`, shipping_carrier: 1 },
    });
    expect(ship.status).toBe(201);
    shipped.push(...mine);
  }
  const records = `select f.warehouse_id as w, li.variant_ref as v, sum(fi.quantity) as n
      from fulfilment_item fi join fulfilment f on f.id = fi.fulfilment_id join line_item li on li.id = fi.line_item_id
      where li.track_inventory group by 1, 2`;
  const restocked = `select r.warehouse_id as w, li.variant_ref as v, sum(ri.quantity) as n
      from restock_item ri join restock r on r.id = ri.restock_id join line_item li on li.id = ri.line_item_id
      where li.track_inventory group by 1, 2`;
  const [before] = await service.sql<{ last: number }>('select coalesce(max(id), 0) as last from inventory_movement');
  const [fulfilledBefore, restockedBefore] = [await sumBy(records), await sumBy(restocked)];
  const [deadlocksBefore] = await service.sql<{ n: string }>(
    'select deadlocks as n from pg_stat_database where datname = current_database()',
  );

  const fulfilments: { order: number; id: number }[] = [];
  const statuses: Record<string, number[]> = {};
  const note = (kind: string, status: number) => (statuses[kind] ??= []).push(status);
  const operation = async (i: number) => {
    const server = servers[i % 2];
    const kind = rng.pick(['fulfil', 'fulfil', 'delete', 'restock', 'adjust', 'adjust', 'adjust', 'set']);
    if (kind === 'fulfil' || (kind === 'delete' && !fulfilments.length)) {
      // Two lines of one order from one warehouse: two levels, named in either order.
      const order = rng.pick(lines).order;
      const mine = lines.filter((l) => l.order === order);
      const chosen = rng.int(0, 1) ? [mine[0], mine[2]] : [mine[2], mine[0]];
      const warehouse = rng.pick(WAREHOUSES);
      const res = await call(server, 'POST', `/api/v1/orders/${order}/fulfilments`, {
        items: chosen.map((l) => ({ id: l.line, quantity: rng.int(1, 3), warehouse })),
      });
      note('fulfil', res.status);
      if (res.status === 201) fulfilments.push({ order, id: res.body.fulfilments.at(-1).id });
      return;
    }
    if (kind === 'delete') {
      const { order, id } = fulfilments.splice(rng.int(0, fulfilments.length - 1), 1)[0];
      note('delete', (await call(server, 'DELETE', `/api/v1/orders/${order}/fulfilments/${id}`)).status);
      return;
    }
    if (kind === 'restock') {
      const line = rng.pick(shipped);
      const res = await call(server, 'POST', '/graphql', {
        query: 'mutation ($o: Int!, $i: RestockInput!) { restockOrderItems(orderId: $o, input: $i) { id } }',
        variables: { o: line.order, i: { warehouse: rng.pick(WAREHOUSES), items: [{ id: line.line, quantity: 1 }] } },
      });
      const code = res.body.errors?.[0]?.extensions?.code;
      note('restock', code === 'CONFLICT' ? 409 : code ? 500 : res.status);
      return;
    }
    if (kind === 'set') {
      const res = await call(server, 'POST', '/graphql', {
        query:
          'mutation ($w: Int!, $v: Int!, $q: Int!) ' +
          '{ setInventoryLevel(warehouseId: $w, variantId: $v, quantity: $q) { id } }',
        variables: { w: rng.pick(WAREHOUSES), v: rng.pick(variants), q: rng.int(2, 14) },
      });
      note('set', res.body.errors ? 500 : res.status);
      return;
    }
    // Adjust 2–4 levels named in a random order, some checked against the units read just before.
    const levels = WAREHOUSES.flatMap((w) => variants.map((v) => ({ w, v })));
    const count = rng.int(2, 4);
    const picked = levels.sort(() => rng.int(-1, 1)).slice(0, count);
    const checked = rng.int(0, 2) === 0;
    const now = checked
      ? await service.sql<{ w: number; v: number; q: number }>(
          'select warehouse_id as w, variant_id as v, quantity as q from inventory_level where variant_id in (?)',
          [variants],
        )
      : [];
    const res = await call(server, 'POST', '/api/v1/inventory-levels/adjustments', {
      reason: rng.pick(['received', 'correction', 'damaged', 'cycle_count']),
      reference: `race-${i}`,
      changes: picked.map(({ w, v }) => ({
        variant_id: v,
        warehouse_id: w,
        delta: rng.pick([-6, -4, -3, -2, -1, 1, 2, 3, 5]),
        ...(checked ? { change_from_quantity: now.find((l) => l.w === w && l.v === v)?.q ?? 0 } : {}),
      })),
    });
    note('adjust', res.status);
  };
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < OPERATIONS) await operation(next++);
    }),
  );
  const elapsed = Date.now() - started;

  // Every answer is a success or a refusal of the request; none a 5xx (a deadlock would be one).
  const all = Object.values(statuses).flat();
  expect(all).toHaveLength(OPERATIONS);
  expect(all.filter((s) => s >= 500)).toEqual([]);
  for (const [kind, got] of Object.entries(statuses)) {
    const allowed = { fulfil: [201, 409], delete: [200], restock: [200, 409], adjust: [200, 409, 412], set: [200] }[
      kind
    ];
    expect({ kind, unexpected: got.filter((s) => !allowed!.includes(s)) }).toEqual({ kind, unexpected: [] });
  }
  // The mix did contend: fulfilments and adjustments both succeeded and were refused for want of stock,
  // and some adjustments found the units moved since they were read.
  for (const [kind, ok, short] of [
    ['fulfil', 201, 409],
    ['adjust', 200, 409],
  ] as const) {
    expect(statuses[kind].filter((s) => s === ok).length).toBeGreaterThan(5);
    expect(statuses[kind].filter((s) => s === short).length).toBeGreaterThan(0);
  }
  expect(statuses.adjust.filter((s) => s === 412).length).toBeGreaterThan(0);

  // For every level: units = Σ deltas, never below zero.
  const levels = await service.sql<{ w: number; v: number; quantity: number; moved: number }>(
    `select l.warehouse_id as w, l.variant_id as v, l.quantity, coalesce(sum(m.delta), 0)::int as moved
       from inventory_level l
       left join inventory_movement m on m.variant_id = l.variant_id and m.warehouse_id = l.warehouse_id
       group by l.id order by 1, 2`,
  );
  expect(levels.filter((l) => l.quantity !== l.moved)).toEqual([]);
  expect(levels.filter((l) => l.quantity < 0)).toEqual([]);
  const [negative] = await service.sql<{ n: number }>(
    'select count(*)::int as n from inventory_movement where quantity_after < 0',
  );
  expect(negative.n).toBe(0);
  // Each level's movements since the start follow one another: each quantity_after is the previous one plus its delta.
  const chains = await service.sql<{ broken: number }>(
    `select count(*)::int as broken from (
         select quantity_after, delta,
           lag(quantity_after) over (partition by warehouse_id, variant_id order by id) as prev
         from inventory_movement where variant_id in (?)) m
       where prev is not null and quantity_after <> prev + delta`,
    [variants],
  );
  expect(chains[0].broken).toBe(0);
  // The movements of fulfilments and restocks agree with the records: what fulfilments hold now was taken, what
  // was restocked was put back.
  const moved = await sumBy(
    `select warehouse_id as w, variant_id as v, sum(delta) as n from inventory_movement
       where id > ? and reason in ('fulfilment', 'fulfilment_deleted') group by 1, 2`,
    [before.last],
  );
  const back = await sumBy(
    `select warehouse_id as w, variant_id as v, sum(delta) as n from inventory_movement
       where id > ? and reason = 'restock' group by 1, 2`,
    [before.last],
  );
  const [fulfilledAfter, restockedAfter] = [await sumBy(records), await sumBy(restocked)];
  for (const w of WAREHOUSES)
    for (const v of variants) {
      const key = `${w}:${v}`;
      const taken = (fulfilledAfter.get(key) ?? 0) - (fulfilledBefore.get(key) ?? 0);
      const returned = (restockedAfter.get(key) ?? 0) - (restockedBefore.get(key) ?? 0);
      expect({ key, moved: moved.get(key) ?? 0, back: back.get(key) ?? 0 }).toEqual({
        key,
        moved: 0 - taken,
        back: returned,
      });
    }
  // PostgreSQL's own count: no deadlock was detected (its statistics are flushed by the backends' exit).
  await Promise.all(servers.map((s) => s.stop()));
  let deadlocks = 0;
  for (let i = 0; i < 20; i++) {
    await service.sql('select pg_stat_clear_snapshot()');
    const [row] = await service.sql<{ n: string }>(
      'select deadlocks as n from pg_stat_database where datname = current_database()',
    );
    deadlocks = Number(row.n) - Number(deadlocksBefore.n);
    if (deadlocks) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(deadlocks).toBe(0);
  expect(elapsed).toBeLessThan(90_000);
  servers = [];
}, 150_000);
