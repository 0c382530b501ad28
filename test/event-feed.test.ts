// docs/decisions.md#event-feed "Event feed": GET /api/v1/events and Query.events list every event
// of the records the token may read after a cursor, oldest first; `types` filters; a cursor past
// retention is a 410 naming the oldest event kept. The cross-process race is event-feed-race.test.ts.
import pg from 'pg';
import { purgeExpiredEvents } from '../src/db/event-retention.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const patch = async (path: string, body: object) => {
  expect((await service.send('PATCH', `/api/v1${path}`, body)).status).toBe(200);
};
const patchNotes = (orderId: number, notes: string) => patch(`/orders/${orderId}`, { notes });
const patchProduct = (productId: number, title: string) => patch(`/products/${productId}`, { title });
const patchCustomer = (customerId: number, notes: string) => patch(`/customers/${customerId}`, { notes });
const allEventIds = async () => {
  return (await service.sql<{ id: number }>('select id from event order by id')).map((r) => r.id);
};

/**
 * Waits until the feed shows every event written so far. The feed shows an event once no
 * transaction anywhere in the cluster that began before it can still commit
 * (src/reads/event-feed.ts), and the test PostgreSQL serves every test file's database: another
 * file's open transaction may hold this file's events back for a moment.
 */
async function feedShowsAll(): Promise<void> {
  const written = (await allEventIds()).length;
  for (let i = 0; i < 400; i++) {
    const res = await service.get('/api/v1/events?size=1');
    if (res.body._meta?.totalCount === written) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the feed did not show the ${written} events written within 20 s`);
}

/** Follows `_links.next` from `path` until a page comes back empty; every page's items, in order. */
async function follow(path: string, token?: string): Promise<{ items: any[]; pages: any[] }> {
  const items: any[] = [];
  const pages: any[] = [];
  let url = `${service.url}${path}`;
  for (let i = 0; i < 100; i++) {
    const res = await service.get(url.slice(service.url.length), token);
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (!res.body.items.length) return { items, pages };
    items.push(...res.body.items);
    url = res.body._links.next.href;
  }
  throw new Error('the feed did not end');
}

describe('a store with changes of every kind', () => {
  beforeAll(async () => {
    await patchNotes(1, 'first');
    await patchProduct(1, 'Renamed product');
    await patchCustomer(1, 'VIP');
    await patchNotes(2, 'second');
    await patchNotes(1, 'third');
    await feedShowsAll();
  });

  it('pages through every event, oldest first, each once, with next links carrying the cursor', async () => {
    const { items, pages } = await follow('/api/v1/events?size=2');
    const ids = await allEventIds();
    expect(items.map((e) => e.id)).toEqual(ids); // one writer here: commit order is id order
    expect(items.map((e) => e.type)).toEqual([
      'order.notes_changed',
      'product.updated',
      'customer.updated',
      'order.notes_changed',
      'order.notes_changed',
    ]);
    expect(items[0]).toMatchObject({
      type: 'order.notes_changed',
      data: { id: 1, notes: 'first' },
      actor: { name: 'test (all scopes)' },
    });
    // Page 1 counts everything after the (absent) cursor; page 2 what follows event 2.
    expect(pages[0]._meta).toEqual({ totalCount: 5, perPage: 2, currentPage: 1, pageCount: 3 });
    expect(pages[1]._meta).toEqual({ totalCount: 3, perPage: 2, currentPage: 1, pageCount: 2 });
    expect(pages[0]._links).toEqual({
      self: { href: `${service.url}/api/v1/events?size=2` },
      first: { href: `${service.url}/api/v1/events?size=2` },
      next: { href: `${service.url}/api/v1/events?size=2&after=${ids[1]}` },
    });
    // The empty page past the end repeats its cursor as next: poll it for what comes later.
    const last = pages[pages.length - 1];
    expect(last.items).toEqual([]);
    expect(last._links.next.href).toBe(`${service.url}/api/v1/events?size=2&after=${ids[4]}`);
    expect(last._meta).toEqual({ totalCount: 0, perPage: 2, currentPage: 1, pageCount: 0 });
  });

  it('answers the pagination headers with the wrapper, and fields narrows the records', async () => {
    const res = await service.get('/api/v1/events?size=3&fields=id,type');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-pagination-total-count')).toBe('5');
    expect(res.headers.get('x-pagination-per-page')).toBe('3');
    expect(res.headers.get('link')).toContain('rel="next"');
    expect(Object.keys(res.body.items[0])).toEqual(['id', 'type']);
  });

  it('resumes after a cursor and sees a change made later', async () => {
    const ids = await allEventIds();
    const tail = await service.get(`/api/v1/events?after=${ids[ids.length - 1]}`);
    expect(tail.body.items).toEqual([]);
    await patchNotes(3, 'later');
    // Another test file's open transaction on the shared cluster may hold the feed's horizon back a moment.
    await feedShowsAll();
    const link = new URL(tail.body._links.next.href);
    const next = await service.get(link.pathname + link.search);
    expect(next.body.items).toEqual([
      expect.objectContaining({ type: 'order.notes_changed', data: { id: 3, notes: 'later' } }),
    ]);
  }, 60_000);

  it('types filters by exact type and by kind (kind.*), in REST and GraphQL', async () => {
    const orders = await follow('/api/v1/events?types=order.*&size=250');
    expect(orders.items.length).toBeGreaterThanOrEqual(4);
    expect(new Set(orders.items.map((e) => e.type))).toEqual(new Set(['order.notes_changed']));
    const mixed = (await service.get('/api/v1/events?types=product.updated,customer.*&size=250')).body;
    expect(mixed.items.map((e: any) => e.type)).toEqual(['product.updated', 'customer.updated']);
    expect(mixed._links.next.href).toContain('types=product.updated%2Ccustomer.*');
    const none = (await service.get('/api/v1/events?types=fulfilment.created')).body;
    expect(none.items).toEqual([]);
    const gql = await service.graphql(`{ events(types: ["customer.*"]) {
      totalCount next items { type subject subjectId } } }`);
    expect(gql.body.data.events).toEqual({
      totalCount: 1,
      next: expect.any(Number),
      items: [{ type: 'customer.updated', subject: 'customer', subjectId: 1 }],
    });
  });

  it('takes events(size: Int) as decisions names it: null is the default page size', async () => {
    const byDefault = await service.graphql('{ events { items { id } next } }');
    const byNull = await service.graphql('query ($n: Int) { events(size: $n) { items { id } next } }', { n: null });
    expect(byNull.body).toEqual(byDefault.body);
    const written = await service.graphql('{ events(size: null) { items { id } next } }');
    expect(written.body).toEqual(byDefault.body);
    const tooBig = await service.graphql('{ events(size: 251) { next } }');
    expect(tooBig.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('a token sees only the events of the records its read scopes cover, and needs one of them', async () => {
    const products = await follow('/api/v1/events', await service.tokenWith(['read_products']));
    expect(products.items.map((e) => e.type)).toEqual(['product.updated']);
    const ordersOrCustomers = await service.tokenWith(['read_orders', 'read_customers']);
    const ordersAndCustomers = await follow('/api/v1/events?size=250', ordersOrCustomers);
    const types = new Set(ordersAndCustomers.items.map((e) => e.type));
    expect(types).toEqual(new Set(['order.notes_changed', 'customer.updated']));
    const collections = await service.get('/api/v1/events', await service.tokenWith(['read_collections']));
    expect(collections.body.items).toEqual([]);
    const refused = await service.get('/api/v1/events', await service.tokenWith(['read_shipping', 'write_orders']));
    expect(refused.status).toBe(403);
    const lacks =
      'This token lacks the scope read_orders or read_products or read_customers or read_collections or read_inventory';
    expect(refused.body.detail).toBe(lacks);
    // read_inventory reads the stock adjustments (none here), none of the other records' events.
    const inventoryOnly = await service.tokenWith(['read_inventory']);
    const stock = await service.graphql('{ events { items { type } } }', undefined, inventoryOnly);
    expect(stock.body.data.events.items).toEqual([]);
    const shippingOnly = await service.tokenWith(['read_shipping']);
    const gql = await service.graphql('{ events { items { type } } }', undefined, shippingOnly);
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('refuses bad parameters with a 400 naming them, and changes nothing', async () => {
    const cases: [string, string, RegExp][] = [
      ['types=order.created,order.x', 'types', /unknown event type "order.x"; valid: order.created, .*order\.\*/],
      ['types=*', 'types', /unknown event type "\*"/],
      ['types=', 'types', /unknown event type ""/],
      ['after=abc', 'after', /integer from 0 to 2147483647/],
      ['after=-1', 'after', /integer from 0/],
      ['size=0', 'size', /integer from 1 to 250/],
      ['size=251', 'size', /integer from 1 to 250/],
      ['page=2', 'page', /commit order by cursor/],
      ['sort=id', 'sort', /commit order by cursor/],
      ['fields=nope', 'fields', /unknown field nope/],
      ['after=2000000000', 'after', /no event has the id 2000000000/],
    ];
    const before = await allEventIds();
    for (const [query, field, message] of cases) {
      const res = await service.get(`/api/v1/events?${query}`);
      const answer = { query, status: res.status, type: res.headers.get('content-type') };
      expect(answer).toEqual({ query, status: 400, type: 'application/problem+json' });
      expect(res.body.errors[0].field).toBe(field);
      expect(res.body.errors[0].message).toMatch(message);
    }
    const gql = await service.graphql('{ events(types: ["order.nope"]) { totalCount } }');
    expect(gql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'types', message: expect.stringContaining('"order.nope"') }],
    });
    expect(await allEventIds()).toEqual(before);
  });
});

describe('retention', () => {
  it('purges a prefix of the feed past the retention; a cursor into it is a 410 naming the oldest kept', async () => {
    for (let i = 0; i < 4; i++) await patchNotes(4, `round ${i}`);
    await feedShowsAll();
    const ids = await allEventIds();
    const kept = ids.slice(-2);
    // Every event but the last two is 31 days old.
    await service.sql(`update event set created_at = created_at - interval '31 days' where id < ?`, [kept[0]]);
    // A webhook delivery of a purged event, still pending (its receiver failing), and one of a kept event.
    const [{ id: subscription }] = await service.sql<{ id: number }>(
      `insert into webhook_subscription (url, events, secret, created_at)
        values ('https://hooks.example/r', '{order.*}', 'whsec_x', now()) returning id`,
    );
    for (const event of [ids[0], kept[1]])
      await service.sql(
        `insert into webhook_delivery (subscription_id, event_id, event_type, status, attempts, next_attempt_at,
          created_at) values (?, ?, 'order.notes_changed', 'pending', 3, now() + interval '1 hour', now())`,
        [subscription, event],
      );
    // A delivery delivered 31 days ago, with its attempt: the log is kept as long as the events.
    const [{ id: delivered }] = await service.sql<{ id: number }>(
      `insert into webhook_delivery (subscription_id, event_id, event_type, status, attempts, next_attempt_at,
        created_at) values (?, ?, 'order.notes_changed', 'delivered', 1, null, now() - interval '31 days')
        returning id`,
      [subscription, ids[1]],
    );
    await service.sql(
      `insert into webhook_attempt (delivery_id, attempt, attempted_at, duration_ms)
        values (?, 1, now() - interval '31 days', 5)`,
      [delivered],
    );
    expect(await purgeExpiredEvents(service.orm, 30, 2)).toBe(ids.length - 2);
    // The purged event's delivery can no longer be sent: failed, saying why, where it was claimed for ever.
    const deliveries = await service.sql<{ event_id: number; status: string; last_error: string | null }>(
      'select event_id, status, last_error from webhook_delivery where subscription_id = ? order by event_id',
      [subscription],
    );
    expect(deliveries).toEqual([
      { event_id: ids[0], status: 'failed', last_error: expect.stringContaining('purged') },
      { event_id: kept[1], status: 'pending', last_error: null },
    ]);
    expect(await service.sql('select id from webhook_attempt where delivery_id = ?', [delivered])).toEqual([]);
    await service.sql('delete from webhook_subscription where id = ?', [subscription]);
    expect(await allEventIds()).toEqual(kept);
    const gone = await service.get(`/api/v1/events?after=${ids[0]}`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('content-type')).toBe('application/problem+json');
    const naming = expect.stringContaining(`the oldest event kept is ${kept[0]}`);
    expect(gone.body).toMatchObject({ type: '/problems/gone', status: 410, detail: naming });
    const gql = await service.graphql(`{ events(after: ${ids[0]}) { totalCount } }`);
    expect(gql.body.errors[0]).toMatchObject({ extensions: { code: 'GONE' }, message: naming });
    // A kept cursor still works, and reading from the start begins at the oldest kept event.
    expect((await service.get(`/api/v1/events?after=${kept[0]}`)).body.items.map((e: any) => e.id)).toEqual([kept[1]]);
    expect((await service.get('/api/v1/events')).body.items.map((e: any) => e.id)).toEqual(kept);
    // Nothing younger than the retention goes.
    expect(await purgeExpiredEvents(service.orm, 30)).toBe(0);
  });
});

describe('retention after a quiet spell', () => {
  it('keeps the newest event when every event is past the retention: a reader at the head reads on', async () => {
    await patchNotes(4, 'before the quiet spell');
    await feedShowsAll();
    const head = (await allEventIds()).at(-1)!;
    await service.sql(`update event set created_at = created_at - interval '31 days'`);
    await purgeExpiredEvents(service.orm, 30);
    expect(await allEventIds()).toEqual([head]);
    const page = await service.get(`/api/v1/events?after=${head}`);
    expect(page.status).toBe(200);
    expect(page.body.items).toEqual([]);
  });
});

describe('a reader whose events are rare', () => {
  it('has its cursor moved past the events it does not see, so retention never purges it under it', async () => {
    await patchNotes(6, 'quiet start');
    await feedShowsAll();
    const start = (await allEventIds()).at(-1)!;
    for (let i = 0; i < 3; i++) await patchNotes(6, `quiet ${i}`);
    await feedShowsAll();
    const head = (await allEventIds()).at(-1)!;
    // No customer.erased event: an empty page, whose next link is past every event it passed over.
    const quiet = `/api/v1/events?types=customer.erased&after=${start}`;
    const page = await service.get(quiet);
    expect(page.status).toBe(200);
    expect(page.body.items).toEqual([]);
    const next = new URL(page.body._links.next.href).searchParams.get('after');
    expect(Number(next)).toBe(head);
    // GraphQL's `next` alike.
    const gql = await service.graphql(`{ events(after: ${start}, types: ["customer.erased"]) { next items { id } } }`);
    expect(gql.body.data.events).toEqual({ next: head, items: [] });
    // Retention purges everything but the head: the cursor it was given still reads.
    await service.sql(`update event set created_at = created_at - interval '31 days' where id < ?`, [head]);
    await purgeExpiredEvents(service.orm, 30);
    expect((await service.get(`/api/v1/events?types=customer.erased&after=${next}`)).status).toBe(200);
    expect((await service.get(quiet)).status).toBe(410);
  });
});

describe('gap-free visibility', () => {
  it('holds back an event committed after an older transaction still writing, then shows both', async () => {
    const client = new pg.Client({ connectionString: service.orm.config.get('clientUrl') });
    await client.connect();
    try {
      const [{ id: cursor }] = await service.sql<{ id: number }>('select max(id) as id from event');
      // An older transaction takes an event id and has not committed yet.
      await client.query('begin');
      const slow = (
        await client.query(
          `insert into event (type, created_at, subject, subject_id, data)
         values ('product.updated', now(), 'product', 2, '{"id": 2}') returning id`,
        )
      ).rows[0].id as number;
      // A later change commits first, with a higher id.
      await patchNotes(5, 'committed first');
      const fast = (await allEventIds()).at(-1)!;
      expect(fast).toBeGreaterThan(slow);
      // A feed by id would show `fast` now and skip `slow` forever; this one waits.
      expect((await service.get(`/api/v1/events?after=${cursor}`)).body.items).toEqual([]);
      await client.query('commit');
      // Another test file's open transaction may hold the horizon back a moment longer (feedShowsAll).
      await feedShowsAll();
      const items = (await service.get(`/api/v1/events?after=${cursor}`)).body.items.map((e: any) => e.id);
      expect(items).toEqual([slow, fast]);
    } finally {
      await client.end();
    }
  });
});
