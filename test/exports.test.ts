// Bulk export (docs/rest.md#exports): GET|POST /api/v1/{orders,customers,products}/export.
import { get, type IncomingMessage } from 'node:http';
import { EXPORT_CHUNK } from '../src/rest/export-lines.js';
import { startTestService, type TestService } from './support/harness.js';

// A pool of three: an export holds one connection for its whole length, so one that leaked its
// connection would soon leave the other requests of this file waiting (and exports take at most
// half the pool: one at a time here).
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ poolMax: 3 });
  // More customers than two chunks hold, so an export of them spans several statements.
  await service.sql(
    `insert into customer (email, first_name, last_name, created_at)
     select 'bulk.' || n || '@example.com', 'Bulk', 'Customer ' || n, now() - n * interval '1 minute'
     from generate_series(1, 2 * ${EXPORT_CHUNK} + 37) n`,
  );
}, 60_000);
afterAll(() => service.stop(), 60_000);

const auth = (token = service.token) => ({ authorization: `Bearer ${token}` });

/** The export's lines, parsed (the harness checked each against the OpenAPI line schema). */
async function exported(path: string, body?: unknown): Promise<{ records: unknown[]; last: unknown; text: string }> {
  const res = body === undefined ? await service.get(path) : await service.send('POST', path, body);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  const lines = res.text.split('\n');
  expect(lines.pop()).toBe('');
  const parsed = lines.map((line) => JSON.parse(line) as unknown);
  return { records: parsed.slice(0, -1), last: parsed[parsed.length - 1], text: res.text };
}

/** Every item of the list, page by page in id order, as it shows them. */
async function listed(path: string): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let page = 1; ; page++) {
    const res = await service.get(`${path}${path.includes('?') ? '&' : '?'}sort=id&size=250&page=${page}`);
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    if (page >= res.body._meta.pageCount) return items;
  }
}

describe('an export is the list, every page of it', () => {
  it.each([
    '/customers',
    '/customers?fields=id,email,statistics',
    '/orders',
    '/orders?fields=id,status,total,items',
    '/products?expand=all',
    '/products?fields=id,title&expand=images,variants',
    '/products',
    '/customers?fields=id,email,first_name,last_name,notes,orders,tags,created_at,updated_at',
    '/orders?fields=id,email,status,paid,tax,total,refund_possible,order_date,updated_at,notes',
    '/orders?fields=id,paid,items',
  ])('%s: line for line the items of paging the list through (sorted by id)', async (list) => {
    const [path, query] = list.split('?');
    const { records, last } = await exported(`/api/v1${path}/export${query ? `?${query}` : ''}`);
    const items = await listed(`/api/v1${list}`);
    expect(records.map((r) => JSON.stringify(r))).toEqual(items.map((i) => JSON.stringify(i)));
    expect(last).toEqual({ complete: true, count: items.length });
  });

  // The export's lines are PostgreSQL's (docs/rest.md#exports); a record's GET runs execution and
  // REST's reshaping: the two roads give the same record.
  it.each(['/orders', '/customers'])(
    '%s with default fields: a line is the record its own GET answers',
    async (path) => {
      const { records } = await exported(`/api/v1${path}/export`);
      const [{ shipped }] = await service.sql<{ shipped: number }>('select min(order_id) as shipped from shipment');
      const sample = [...records.slice(0, 20), ...records.filter((r) => (r as { id: number }).id === shipped)];
      expect(sample.length).toBeGreaterThan(path === '/orders' ? 20 : 19);
      for (const record of sample) {
        const one = await service.get(`/api/v1${path}/${(record as { id: number }).id}`);
        expect(one.status).toBe(200);
        expect(JSON.stringify(record)).toBe(JSON.stringify(one.body));
      }
    },
  );

  it('lifetime_spent in whole units, rounded half away from zero, as the GET rounds it', async () => {
    const amounts = ['12.50', '12.49', '-12.50', '-0.49', '0.50', '99999999.99'];
    const ids = await service.sql<{ id: number }>(
      `update customer set lifetime_spent = (array[${amounts.join(', ')}]::numeric[])[c.n]
       from (select id, row_number() over (order by id) as n from customer order by id limit ${amounts.length}) c
       where customer.id = c.id returning customer.id`,
    );
    const { records } = await exported('/api/v1/customers/export?fields=id,statistics');
    const byId = new Map(records.map((r) => [(r as { id: number }).id, r]));
    const units: unknown[] = [];
    for (const { id } of ids) {
      const one = await service.get(`/api/v1/customers/${id}?fields=id,statistics`);
      expect(byId.get(id)).toEqual(one.body);
      units.push(one.body.statistics.lifetime_spent);
    }
    expect(units.sort((a, b) => Number(a) - Number(b))).toEqual([-13, 0, 1, 12, 13, 100000000]);
  });

  it('ends with the complete line counting every record of the store', async () => {
    const [{ n }] = await service.sql<{ n: number }>('select count(*)::int as n from customer');
    expect(n).toBeGreaterThan(2 * EXPORT_CHUNK);
    const { records, last } = await exported('/api/v1/customers/export?fields=id');
    expect(last).toEqual({ complete: true, count: n });
    expect(new Set(records.map((r) => (r as { id: number }).id)).size).toBe(n);
  });

  it.each(['/api/v1/orders/export', '/api/v1/orders/export?fields=id,status'])(
    '%s of an empty set is the complete line alone',
    async (path) => {
      const { text } = await exported(path, { id: [999_999] });
      expect(text).toBe('{"complete":true,"count":0}\n');
    },
  );
});

describe('who writes the lines', () => {
  /** The chunks each road wrote while `path` was exported (the `export_chunks_total` metric). */
  async function roadsOf(path: string): Promise<{ postgres: number; reshaped: number }> {
    const metricsToken = await service.tokenWith(['read_metrics']);
    const counts = async () => {
      const res = await service.get('/metrics', metricsToken);
      expect(res.status).toBe(200);
      const count = (road: string) =>
        Number(new RegExp(`^export_chunks_total\\{road="${road}"\\} (\\d+)$`, 'm').exec(res.text)?.[1] ?? 0);
      return { postgres: count('postgres'), reshaped: count('reshaped') };
    };
    const before = await counts();
    await exported(path);
    const after = await counts();
    return { postgres: after.postgres - before.postgres, reshaped: after.reshaped - before.reshaped };
  }

  it.each([
    '/api/v1/products/export',
    '/api/v1/products/export?expand=textareas,images',
    '/api/v1/customers/export?fields=id,email,orders,tags,updated_at',
    '/api/v1/orders/export?fields=id,status,paid,total,updated_at',
    // Field resolvers with a declared value (@Projects): counters, statistics, display numbers, …
    '/api/v1/orders/export',
    '/api/v1/orders/export?fields=id,items',
    '/api/v1/customers/export',
    '/api/v1/customers/export?fields=id,statistics',
    // Thumbnails show the colour or the image, whichever is set (`either`); renamed variant columns.
    '/api/v1/products/export?fields=id&expand=options',
    '/api/v1/products/export?expand=all',
  ])('%s: plain fields, groupings and declared values, so PostgreSQL writes every chunk', async (path) => {
    const roads = await roadsOf(path);
    expect(roads.reshaped).toBe(0);
    expect(roads.postgres).toBeGreaterThan(0);
  });

  it('a customers export of several chunks from PostgreSQL holds every record once, in id order', async () => {
    const [{ n }] = await service.sql<{ n: number }>('select count(*)::int as n from customer');
    const { records, last } = await exported('/api/v1/customers/export?fields=id,last_name');
    const ids = records.map((r) => (r as { id: number }).id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(n);
    expect(last).toEqual({ complete: true, count: n });
  });
});

describe('GraphQL afterId (what the export pages with)', () => {
  it('narrows orders, customers and products to larger ids, with the filter', async () => {
    const query = `query ($after: Int) {
      orders(afterId: $after, size: 3, sort: [{ field: ID, direction: ASC }],
        filter: { status: [PARTIALLY_FULFILLED_AND_SHIPPED] }) { totalCount items { id status } }
      customers(afterId: $after, size: 2, sort: [{ field: ID, direction: ASC }]) { items { id } }
      products(afterId: $after, size: 2, sort: [{ field: ID, direction: ASC }]) { items { id } }
    }`;
    const res = await service.graphql(query, { after: 50 });
    expect(res.body.errors).toBeUndefined();
    const { orders, customers, products } = res.body.data;
    const [{ n }] = await service.sql<{ n: number }>(
      'select count(*)::int as n from orders where id > 50 and status = 2',
    );
    expect(orders.totalCount).toBe(n);
    const [{ ids }] = await service.sql<{ ids: number[] }>(
      'select array_agg(id order by id) as ids from ' +
        '(select id from orders where id > 50 and status = 2 order by id limit 3) o',
    );
    expect(orders.items.map((o: { id: number }) => o.id)).toEqual(ids);
    expect(customers.items).toEqual([{ id: 51 }, { id: 52 }]);
    expect(products.items).toEqual([{ id: 51 }, { id: 52 }]);
  });
});

describe('POST takes the search body as the filter', () => {
  it.each([
    ['/orders', { status: [3, 4], total: { gte: 50 } }],
    ['/orders', { status: 2 }],
    ['/customers', { last_name: 'van Rossum' }],
    ['/customers', { first_name: 'Bulk' }],
    // Plain fields: PostgreSQL writes these lines, filtered the same way.
    ['/customers?fields=id,email,last_name,updated_at', { first_name: 'Bulk' }],
    ['/orders?fields=id,status,paid,total', { status: [3, 4], total: { gte: 50 } }],
    ['/orders?fields=id,display_number,address,shipments,customer,items', { status: [3, 4, 5] }],
    // Products' search body: ids and metafields (test/metafields.test.ts searches by those).
    ['/products?expand=all', { id: [1, 2, 3, 5, 8, 13] }],
  ])('%s %j: the same records as the search', async (list, body) => {
    const [path, query] = list.split('?');
    const { records, last } = await exported(`/api/v1${path}/export${query ? `?${query}` : ''}`, body);
    const found: unknown[] = [];
    for (let page = 1; ; page++) {
      const res = await service.send(
        'POST',
        `/api/v1${path}/search?${query ? `${query}&` : ''}sort=id&size=250&page=${page}`,
        body,
      );
      expect(res.status).toBe(200);
      const items = Array.isArray(res.body) ? res.body : res.body.items;
      found.push(...items);
      if (items.length < 250) break;
    }
    expect(found.length).toBeGreaterThan(0);
    expect(records).toEqual(found);
    expect(last).toEqual({ complete: true, count: found.length });
  });

  it('a body the search refuses is refused the same way, before any line', async () => {
    const search = await service.send('POST', '/api/v1/orders/search', { status: 'open' });
    const res = await service.send('POST', '/api/v1/orders/export', { status: 'open' });
    expect(search.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBe(search.status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual(search.body.errors);
  });
});

describe('refusals come before any line', () => {
  it('a token without the scope gets 403, without a token 401', async () => {
    const token = await service.tokenWith(['read_products']);
    for (const [method, path] of [
      ['GET', '/orders/export'],
      ['POST', '/orders/export'],
      ['GET', '/customers/export'],
      ['POST', '/customers/export'],
    ]) {
      const res = await service.send(method, `/api/v1${path}`, method === 'POST' ? {} : undefined, token);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.detail).toMatch(/read_(orders|customers)/);
    }
    expect((await service.get('/api/v1/products/export', await service.tokenWith(['read_orders']))).status).toBe(403);
    expect((await service.get('/api/v1/orders/export', null)).status).toBe(401);
  });

  it.each([
    ['/orders/export?fields=id,nope', 'fields'],
    ['/products/export?expand=nope', 'expand'],
    ['/customers/export?sort=-id', 'sort'],
    ['/orders/export?size=10', 'size'],
    ['/orders/export?page=2', 'page'],
  ])('%s is a 400 naming %s', async (path, field) => {
    const res = await service.get(`/api/v1${path}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });
});

/** Transactions other than the asking one, open on this file's database. */
/** The service's open transactions: client sessions only (autovacuum's workers hold transactions too). */
const OPEN_TRANSACTIONS = `datname = current_database() and xact_start is not null
  and backend_type = 'client backend' and pid <> pg_backend_pid()`;

async function openTransactions(): Promise<number> {
  const [{ n }] = await service.sql<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where ${OPEN_TRANSACTIONS}`,
  );
  return n;
}

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('one snapshot', () => {
  it('a write committed while the export runs does not appear in it', async () => {
    const [{ id: lastId }] = await service.sql<{ id: number }>('select max(id) as id from customer');
    const res = await fetch(`${service.url}/api/v1/customers/export`, { headers: auth() });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // Committed now: a change of the last customer (in the export's last chunk) and a new one.
    await service.sql("update customer set email = 'changed.during.export@example.com' where id = ?", [lastId]);
    await service.sql("insert into customer (email, created_at) values ('added.during.export@example.com', now())");
    let text = Buffer.from(first.value!).toString();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += Buffer.from(chunk.value).toString();
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const records = lines.slice(0, -1) as { id: number; email: string }[];
    expect(records[records.length - 1].id).toBe(lastId);
    expect(records[records.length - 1].email).not.toBe('changed.during.export@example.com');
    expect(records.some((r) => r.email === 'added.during.export@example.com')).toBe(false);
    expect(lines[lines.length - 1]).toEqual({ complete: true, count: records.length });
    // The next export sees both.
    const after = await exported('/api/v1/customers/export?fields=id,email');
    expect(after.records.slice(-2).map((r) => (r as { email: string }).email)).toEqual([
      'changed.during.export@example.com',
      'added.during.export@example.com',
    ]);
  });

  it('holds one transaction while it runs, and none after', async () => {
    // An earlier export's snapshot may still be committing after its last line was sent.
    await eventually(async () => (await openTransactions()) === 0);
    const res = await fetch(`${service.url}/api/v1/customers/export`, { headers: auth() });
    const reader = res.body!.getReader();
    await reader.read();
    const held = await service.sql<{ query: string }>(`select query from pg_stat_activity where ${OPEN_TRANSACTIONS}`);
    // With their statements, so that a failure says whose the other transaction was.
    expect(held.map((row) => row.query.slice(0, 120))).toHaveLength(1);
    while (!(await reader.read()).done);
    await eventually(async () => (await openTransactions()) === 0);
  });
});

describe('backpressure and cut-off exports', () => {
  // Large enough (~25 MB of records) that a client which stops reading stops the reads well before the end.
  beforeAll(async () => {
    await service.sql(
      `insert into customer (email, first_name, last_name, notes, created_at)
       select 'paced.' || n || '@example.com', 'Paced', 'Customer ' || n, repeat('x', 2000), now()
       from generate_series(1, 40 * ${EXPORT_CHUNK}) n`,
    );
  }, 120_000);

  it('a client that stops reading stops the chunk reads; resumed, it gets the whole export', async () => {
    const [{ n }] = await service.sql<{ n: number }>('select count(*)::int as n from customer');
    const chunks = Math.ceil(n / EXPORT_CHUNK);
    const url = new URL('/api/v1/customers/export', service.url);
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      get(url, { headers: auth() }, resolve).on('error', reject),
    );
    expect(res.statusCode).toBe(200);
    // Not read from here on: the kernel's socket buffers and the stream's own fill first (how much
    // they hold depends on the machine), then the server's write waits and the chunk reads stop.
    res.pause();
    const customerReads = () => service.statements.texts.filter((text) => text.includes('"customer"')).length;
    let quiet = false;
    try {
      for (const end = Date.now() + 15_000; !quiet && Date.now() < end; ) {
        service.statements.reset();
        await new Promise((resolve) => setTimeout(resolve, 700));
        quiet = customerReads() === 0;
      }
      expect(quiet).toBe(true);
    } catch (error) {
      res.destroy();
      throw error;
    }
    service.statements.reset();
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.resume();
    await new Promise((resolve) => res.on('end', resolve));
    const lines = text.trimEnd().split('\n');
    expect(JSON.parse(lines[lines.length - 1])).toEqual({ complete: true, count: n });
    // The export had not read ahead to the end while paused: chunks were left for after resuming.
    expect(customerReads()).toBeGreaterThan(0);
    expect(customerReads()).toBeLessThanOrEqual(chunks);
  }, 45_000);

  it('a client that goes away midway leaves no transaction open and the pool whole', async () => {
    for (let i = 0; i < 4; i++) {
      const abort = new AbortController();
      const res = await fetch(`${service.url}/api/v1/customers/export`, { headers: auth(), signal: abort.signal });
      const reader = res.body!.getReader();
      await reader.read();
      abort.abort();
      await reader.read().catch(() => undefined);
      await eventually(async () => (await openTransactions()) === 0);
    }
    // Four cut-off exports on a pool of three: every connection came back, reads still answer.
    const res = await service.get('/api/v1/orders?size=1');
    expect(res.status).toBe(200);
    const { last } = await exported('/api/v1/products/export?fields=id');
    expect(last).toEqual({ complete: true, count: 60 });
  }, 30_000);

  /** Copies of the catalogue (no options, variants or images), so an export of products spans several chunks. */
  async function withMoreProducts(run: () => Promise<void>) {
    await service.sql(`insert into product (title, is_multi, type, is_giftcard, tags, shipping_weight,
      auto_fulfilment, track_inventory, vendor, sku, seo_meta, seo_title, seo_url, is_template, is_draft, price,
      compare_price, created_at, updated_at, version)
      select title, is_multi, type, is_giftcard, tags, shipping_weight, auto_fulfilment, track_inventory, vendor, sku,
        seo_meta, seo_title, seo_url || '-cut' || n, is_template, is_draft, price, compare_price,
        created_at, updated_at, 1
      from product, generate_series(1, ${Math.ceil((3 * EXPORT_CHUNK) / 60)}) n`);
    try {
      await run();
    } finally {
      await service.sql("delete from product where seo_url ~ '-cut[0-9]+$'");
    }
  }

  it.each([
    ['products with everything', '/api/v1/products/export?expand=all'],
    ['customers', '/api/v1/customers/export?fields=id,email,last_name,orders,created_at'],
  ])(
    'an export (%s) whose database session fails midway ends without the complete line',
    async (what, path) => {
      if (what.startsWith('products')) await withMoreProducts(() => cutOff(path));
      else await cutOff(path);
    },
    30_000,
  );

  /** Starts `path`, ends its database session after the first chunk: the response ends without the complete line. */
  async function cutOff(path: string) {
    const res = await fetch(`${service.url}${path}`, { headers: auth() });
    const reader = res.body!.getReader();
    let text = Buffer.from((await reader.read()).value!).toString();
    await service.sql(
      'select pg_terminate_backend(pid) from pg_stat_activity ' +
        'where datname = current_database() and xact_start is not null and pid <> pg_backend_pid()',
    );
    let failed = false;
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += Buffer.from(chunk.value).toString();
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect(text).not.toContain('"complete"');
    await eventually(async () => (await openTransactions()) === 0);
    expect((await service.get('/api/v1/orders?size=1')).status).toBe(200);
  }
});

describe('exports at once', () => {
  it('take at most half the pool: one more is a 503 overloaded with Retry-After, until one ends', async () => {
    // This file's pool has three connections: one export at a time.
    const res = await fetch(`${service.url}/api/v1/customers/export`, { headers: auth() });
    const reader = res.body!.getReader();
    await reader.read();
    const refused = await service.get('/api/v1/orders/export?fields=id');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.type).toBe('/problems/overloaded');
    // The other requests still have connections.
    expect((await service.get('/api/v1/orders?size=1')).status).toBe(200);
    while (!(await reader.read()).done);
    await eventually(async () => (await service.get('/api/v1/products/export?fields=id')).status === 200);
  }, 30_000);
});

describe('the rate limit', () => {
  it('charges an export of many chunks once', async () => {
    const limited = await startTestService({ rateLimit: { burst: 10, rps: 0.001 } });
    try {
      await limited.sql(
        `insert into customer (email, created_at)
         select 'rate.' || n || '@example.com', now() from generate_series(1, 3 * ${EXPORT_CHUNK}) n`,
      );
      const first = await limited.get('/api/v1/orders?size=1');
      const before = Number(first.headers.get('ratelimit-remaining'));
      const res = await limited.get('/api/v1/customers/export?fields=id');
      expect(res.status).toBe(200);
      expect(Number(res.headers.get('ratelimit-remaining'))).toBe(before - 1);
      const next = await limited.get('/api/v1/orders?size=1');
      expect(Number(next.headers.get('ratelimit-remaining'))).toBe(before - 2);
    } finally {
      await limited.stop();
    }
  });
});
