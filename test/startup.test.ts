// The start-up contract (docs/decisions.md#start-up-contract): configuration checked up front,
// migrations applied, the demo store seeded once on an empty database, the first token created or
// ADMIN_TOKEN honoured.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ormConfig } from '../mikro-orm.config.js';
import { ensureFirstToken } from '../src/auth/api-tokens.js';
import { type Config, loadConfig } from '../src/config.js';
import { type RunningService, startService, unfinishedStartToken } from '../src/server.js';
import { startBanner } from '../src/start-banner.js';
import { createDatabase } from './support/harness.js';

const baseEnv = { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' };

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ HOST: '127.0.0.1', PORT: 3000, DATA_DIR: './.data', SEED_DEMO: true });
  });

  it('refuses bad values with one clear line per variable', () => {
    expect(() =>
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', SEED_DEMO: 'maybe', ADMIN_TOKEN: 'my admin secret' }),
    ).toThrow(
      new RegExp(
        [
          'Invalid configuration:',
          ' {2}PORT: .*',
          ' {2}DATABASE_URL: must be a postgres:// URL',
          ' {2}SEED_DEMO: .*',
          ' {2}ADMIN_TOKEN: must be one word of visible ASCII characters \\(no spaces\\).*',
        ].join('\n'),
      ),
    );
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    // Sent as UTF-8 and read back as Latin-1 by Node, a secret with `€` could never be presented.
    expect(() => loadConfig({ ADMIN_TOKEN: 'sk-admin-€-0123456789' })).toThrow(
      /ADMIN_TOKEN: must be one word of visible ASCII/,
    );
    // Blank is unset, as empty is: not a PORT of 0 (a random port).
    expect(loadConfig({ PORT: '  ', LOG_LEVEL: '' })).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info' });
    expect(() => loadConfig({ PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
  });
});

it('refuses an unknown LOG_LEVEL at start with the configuration line, not a stack trace', async () => {
  // The logger is built as its module loads, before the configuration is read.
  const child = spawn(process.execPath, [path.resolve('dist/src/main.js')], {
    env: { ...process.env, LOG_LEVEL: 'verbose', NODE_ENV: 'production', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).not.toBe(0);
  expect(output).toMatch(/Invalid configuration:\n {2}LOG_LEVEL: /);
  expect(output).not.toMatch(/\n\s+at /);
}, 30_000);

it('says in one line on stderr why it failed to start when the database cannot be reached', async () => {
  const child = spawn(process.execPath, [path.resolve('dist/src/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: 'postgres://nobody:wrong@127.0.0.1:9/nowhere',
      NODE_ENV: 'production',
      PORT: '0',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(1);
  expect(errors).toMatch(/^failed to start: .+\n$/);
}, 30_000);

describe('starting on an empty database', () => {
  let url: string;
  let service: RunningService;
  beforeAll(async () => {
    url = await createDatabase('empty');
    service = await startService(loadConfig({ ...baseEnv, DATABASE_URL: url }) as Config);
  });
  afterAll(() => service.stop());

  it('creates and returns a first token with every scope, which works', async () => {
    expect(service.firstToken).toMatch(/^sk_/);
    const res = await fetch(`${service.url}/api/v1/products?size=1`, {
      headers: { authorization: `Bearer ${service.firstToken}` },
    });
    expect(res.status).toBe(200);
    const [token] = await query<{ scopes: string[] }>(url, 'select scopes from api_token');
    expect(token.scopes).toContain('manage_tokens');
  });

  it('seeds the demo store of the start-up contract', async () => {
    expect(service.seeded).toBe(true);
    const [counts] = await query<Record<string, string>>(
      url,
      `select
      (select count(*) from product) as products,
      (select count(*) from product where is_multi) as multi,
      (select count(*) from product where not is_multi) as single,
      (select count(*) from product where track_inventory) as tracked,
      (select count(distinct product_id) from product_image) as with_images,
      (select count(distinct product_id) from product_textarea) as with_textareas,
      (select count(distinct warehouse_id) from inventory_level where quantity > 0) as stocked_warehouses,
      (select count(*) from shipping_carrier) as carriers,
      (select count(*) from shipping_carrier where is_deleted) as deleted_carriers,
      (select count(*) from customer) as customers,
      (select count(*) from orders) as orders,
      (select count(distinct status) from orders) as statuses`,
    );
    expect(Number(counts.products)).toBeGreaterThanOrEqual(50);
    for (const key of ['multi', 'single', 'tracked', 'with_images', 'with_textareas'])
      expect(Number(counts[key])).toBeGreaterThan(0);
    expect(Number(counts.stocked_warehouses)).toBeGreaterThanOrEqual(3);
    expect(Number(counts.carriers)).toBeGreaterThanOrEqual(5);
    expect(Number(counts.deleted_carriers)).toBe(1);
    expect(Number(counts.customers)).toBeGreaterThanOrEqual(100);
    expect(Number(counts.orders)).toBeGreaterThanOrEqual(200);
    expect(Number(counts.statuses)).toBe(6);
  });

  it('has at least 20 unfulfilled orders whose tracked items are in stock', async () => {
    const [row] = await query<{ n: string }>(
      url,
      `select count(*) as n from orders o where o.status = 0
      and exists (select 1 from line_item li where li.order_id = o.id and li.track_inventory)
      and not exists (select 1 from line_item li where li.order_id = o.id and li.track_inventory
        and not exists (select 1 from inventory_level il where il.variant_id = li.variant_id
          and il.quantity >= li.quantity))`,
    );
    expect(Number(row.n)).toBeGreaterThanOrEqual(20);
  });

  it('keeps every order consistent: counters balance, status derives from them, records match', async () => {
    const rows = await query<{
      id: number;
      status: number;
      q: number;
      nf: number;
      f: number;
      s: number;
      r: number;
      fi: number;
      si: number;
    }>(
      url,
      `
      select o.id, o.status, sum(li.quantity)::int as q, sum(li.not_fulfilled)::int as nf, sum(li.fulfilled)::int as f,
        sum(li.shipped)::int as s, sum(li.restocked)::int as r,
        coalesce((select sum(fi.quantity) from fulfilment_item fi join fulfilment fu on fu.id = fi.fulfilment_id
          where fu.order_id = o.id), 0)::int as fi,
        coalesce((select sum(si.quantity) from shipment_item si join shipment sh on sh.id = si.shipment_id
          where sh.order_id = o.id), 0)::int as si
      from orders o join line_item li on li.order_id = o.id group by o.id`,
    );
    for (const o of rows) {
      expect(o.q).toBe(o.nf + o.f + o.s + o.r);
      const live = o.q - o.r;
      const expected = o.f + o.s === 0 ? 0 : o.s === 0 ? (o.nf > 0 ? 1 : 3) : o.nf > 0 ? 2 : o.s < live ? 4 : 5;
      expect({ id: o.id, status: o.status }).toEqual({ id: o.id, status: expected });
      expect(o.fi).toBe(o.f + o.s); // units ever fulfilled = still fulfilled + shipped
      expect(o.si).toBe(o.s);
    }
  });

  it('does not seed or create a token again on the next start', async () => {
    const again = await startService(loadConfig({ ...baseEnv, DATABASE_URL: url }) as Config);
    try {
      expect(again.seeded).toBe(false);
      expect(again.firstToken).toBeNull();
    } finally {
      await again.stop();
    }
    const [{ n }] = await query<{ n: string }>(url, 'select count(*) as n from api_token');
    expect(Number(n)).toBe(1);
  });
});

describe('ADMIN_TOKEN and SEED_DEMO=false', () => {
  it('creates the admin token with every scope and no printed token, and seeds nothing', async () => {
    const url = await createDatabase('empty');
    // Any secret is honoured, a short one too (npm start warns on stderr that it is guessable).
    const admin = 'changeme';
    const service = await startService(
      loadConfig({ ...baseEnv, DATABASE_URL: url, ADMIN_TOKEN: admin, SEED_DEMO: 'false' }) as Config,
    );
    try {
      expect(service.firstToken).toBeNull();
      expect(service.seeded).toBe(false);
      const res = await fetch(`${service.url}/api/v1/products`, { headers: { authorization: `Bearer ${admin}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { items: unknown[] }).items).toEqual([]);
      // The banner names the token to use: the one given, not one "printed on the first start".
      const banner = startBanner(service, service.url, true);
      expect(banner).toContain('the ADMIN_TOKEN this start was given');
      expect(banner).not.toContain('printed on the first start');
    } finally {
      await service.stop();
    }
  });
});

describe('several processes starting at once on a store without tokens', () => {
  it('create one first token between them, printed by one', async () => {
    const url = await createDatabase('empty');
    const admin = 'admin-secret-for-tests-0123456789';
    // Migrated by a start with ADMIN_TOKEN, whose token then goes: no token is left.
    const first = await startService(
      loadConfig({ ...baseEnv, DATABASE_URL: url, ADMIN_TOKEN: admin, SEED_DEMO: 'false' }) as Config,
    );
    await first.stop();
    await query(url, 'delete from api_token');
    const orms = await Promise.all([1, 2, 3].map(() => MikroORM.init(ormConfig(url))));
    try {
      const printed = await Promise.all(orms.map((orm) => ensureFirstToken(orm.em.fork(), undefined)));
      expect(printed.filter((secret) => secret !== null)).toHaveLength(1);
      const [{ n }] = await query<{ n: string }>(url, 'select count(*) as n from api_token');
      expect(Number(n)).toBe(1);
    } finally {
      await Promise.all(orms.map((orm) => orm.close()));
    }
  });
});

// A start that made the first token and then failed (its port taken meanwhile, a worker dying)
// exited without showing it, and the next start made none: nobody ever saw it.
describe('a start that fails after making the first token', () => {
  it('hands the token to whoever reports the failure (npm start prints it)', async () => {
    const url = await createDatabase('empty');
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as net.AddressInfo).port);
    try {
      const failed = await startService(
        loadConfig({ ...baseEnv, PORT: port, DATABASE_URL: url, SEED_DEMO: 'false' }) as Config,
      ).catch((error: unknown) => error);
      const firstToken = (failed as { firstToken?: unknown }).firstToken;
      expect(typeof firstToken).toBe('string');
      const [{ n }] = await query<{ n: string }>(url, 'select count(*) as n from api_token');
      expect(Number(n)).toBe(1);
      expect(unfinishedStartToken(firstToken as string)).toContain(firstToken as string);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('the demo store is deterministic', () => {
  it('builds the same store for the same SEED', async () => {
    const [a, b] = await Promise.all([createDatabase('empty'), createDatabase('empty')]);
    const started = await Promise.all(
      [a, b].map((u) => startService(loadConfig({ ...baseEnv, DATABASE_URL: u }) as Config)),
    );
    await Promise.all(started.map((s) => s.stop()));
    const digest = (u: string) =>
      query<{ d: string }>(
        u,
        `select md5(string_agg(t::text, '|' order by t.id)) as d from (
        select id, title, price::text, tags::text from product union all
        select id, email, total::text, status::text from orders) t`,
      );
    expect(await digest(a)).toEqual(await digest(b));
  });
});
