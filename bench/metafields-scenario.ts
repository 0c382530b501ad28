// The metafields bench (issue 39, docs/performance.md#metafields):
//
//   npm run bench:metafields -- [--orders N --products N --customers N --duration S --connections N --rounds N]
//
// On the bench's store (.bench-data/, the same store `npm run bench` seeds and reuses), every order
// gets three metafields (an ERP number unique per order, a channel shared by a third of them, a
// decimal weight); then the service (as `npm start` runs it, auth and rate limit on) is driven with
// autocannon, in interleaved rounds so a busy machine's drift falls on every side alike:
//   - POST /orders/search {"customer_id": random} against {"metafields": {"erp.order_no": random}}:
//     goal, the metafield search's p50 at most 2 × the customer id search's;
//   - GET /orders?size=20 against GET /orders?size=20&expand=metafields: goal, the expanded list at
//     least 0.8 × the plain one's requests per second.
// Each answer is checked (200, and the search finds its order); the figures go to
// bench/results/metafields-orders-N.json.
import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { ensureFirstToken } from '../src/auth/api-tokens.js';
import { openDatabase } from '../src/db/database.js';
import { seedIfEmpty } from '../src/seed/seed-store.js';
import { root, startChild } from './child-process.js';
import { uniform } from './scenario.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '1000000' },
    products: { type: 'string', default: '10000' },
    customers: { type: 'string', default: '50000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
  },
});
// The same store as `npm run bench` seeds for these sizes (bench/run.ts): three warehouses, seed 1.
const size = {
  orders: Number(values.orders),
  products: Number(values.products),
  customers: Number(values.customers),
  warehouses: 3,
  seed: 1,
};
const duration = Math.min(Number(values.duration), 60);
const connections = Math.min(Number(values.connections), 32);
const rounds = Math.min(Number(values.rounds), 10);
const ADMIN_TOKEN = 'sk_bench_admin_token_not_a_secret_000000000000';
const dataDir = path.join(root, '.bench-data', `o${size.orders}-p${size.products}-c${size.customers}`);
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Goals of issue 39. */
export const METAFIELD_SEARCH_P50_GOAL = 2;
export const EXPANDED_LIST_RPS_GOAL = 0.8;

function startService(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const env = {
    DATABASE_URL: databaseUrl,
    DB_POOL_MAX: '10',
    ADMIN_TOKEN,
    SEED_DEMO: 'false',
    OUTBOX_WORKER: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_RPS: '1000000',
    RATE_LIMIT_BURST: '1000000',
    DATABASE_READ_URL: '',
    WEB_CONCURRENCY: '',
  };
  return startChild('dist/src/main.js', env, { logDir: dataDir, logName: 'metafields-main', startMs: 120_000 });
}

/**
 * Three metafields on every order, once per store (the bench's own data, idempotent: a run cut off
 * midway goes on where it stopped), written in chunks of orders through a client of its own, so no
 * statement meets the pool's read timeout.
 */
async function ensureMetafields(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`insert into metafield_definition (owner_type, namespace, key, type, name, created_at)
      values ('ORDER', 'erp', 'order_no', 'single_line_text_field', 'ERP order number', now()),
        ('ORDER', 'erp', 'channel', 'single_line_text_field', 'Sales channel', now()),
        ('ORDER', 'erp', 'weight_kg', 'number_decimal', 'Weight in kg', now())
      on conflict do nothing`);
    const { rows } = await client.query<{ done: string; max: number }>(
      `select (select count(*) from metafield m join metafield_definition d on d.id = m.definition_id
        where d.owner_type = 'ORDER' and d.namespace = 'erp') as done, (select max(id) from orders) as max`,
    );
    if (Number(rows[0].done) >= 3 * size.orders) {
      log('  reusing the orders’ metafields already there');
      return;
    }
    const started = Date.now();
    const CHUNK = 50_000;
    for (let from = 1; from <= rows[0].max; from += CHUNK) {
      await client.query(
        `insert into metafield (definition_id, namespace, key, type, value, order_id, created_at, updated_at)
         select d.id, d.namespace, d.key, d.type, case d.key when 'order_no' then 'A-' || o.id
           when 'channel' then (array['web', 'store', 'phone'])[1 + o.id % 3]
           else trim_scale(round((o.id % 997) / 100.0, 2))::text end, o.id, now(), now()
         from orders o cross join metafield_definition d
         where d.owner_type = 'ORDER' and d.namespace = 'erp' and o.id between $1 and $2
         order by o.id, d.id
         on conflict (order_id, definition_id) where order_id is not null do nothing`,
        [from, from + CHUNK - 1],
      );
      if ((from - 1) % (10 * CHUNK) === 0) log(`  metafields… orders ${from}–${from + CHUNK - 1}`);
    }
    await client.query('analyze metafield');
    log(`  three metafields on each of ${size.orders} orders in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
}

interface Side {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: (i: number) => unknown;
}

interface Load {
  rps: number;
  /** autocannon's latencies: p50 and p99 in whole ms, the mean with its fraction. */
  p50: number;
  p99: number;
  mean: number;
  requests: number;
}

async function drive(url: string, side: Side, seconds: number): Promise<Load> {
  let i = 0;
  let failed = '';
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 60,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    requests: [
      {
        method: side.method,
        setupRequest: (req) => {
          const n = i++;
          return { ...req, path: side.path, body: side.body ? JSON.stringify(side.body(n)) : undefined };
        },
        onResponse: (status, body) => {
          if ((status < 200 || status > 299) && !failed) failed = `${status} ${body.slice(0, 300)}`;
        },
      },
    ],
  });
  if (failed || result.non2xx) throw new Error(`${side.name}: ${result.non2xx} answers not 2xx, e.g. ${failed}`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    requests: result.requests.total,
  };
}

const orderAt = (i: number) => 1 + Math.floor(uniform(i, 51) * size.orders);
const customerAt = (i: number) => 1 + Math.floor(uniform(i, 52) * size.customers);

const SIDES: Side[] = [
  {
    name: 'POST /orders/search (customer id)',
    method: 'POST',
    path: '/api/v1/orders/search',
    body: (i) => ({ customer_id: customerAt(i) }),
  },
  {
    name: 'POST /orders/search (metafield erp.order_no)',
    method: 'POST',
    path: '/api/v1/orders/search',
    body: (i) => ({ metafields: { 'erp.order_no': `A-${orderAt(i)}` } }),
  },
  { name: 'GET /orders?size=20', method: 'GET', path: '/api/v1/orders?size=20' },
  { name: 'GET /orders?size=20&expand=metafields', method: 'GET', path: '/api/v1/orders?size=20&expand=metafields' },
];

async function check(url: string): Promise<void> {
  const id = orderAt(7);
  const res = await fetch(`${url}/api/v1/orders/search?fields=id&expand=metafields`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ metafields: { 'erp.order_no': `A-${id}` } }),
  });
  const body = (await res.json()) as { id: number; metafields: Record<string, unknown> }[];
  if (res.status !== 200 || body.length !== 1 || body[0].id !== id || body[0].metafields['erp.order_no'] !== `A-${id}`)
    throw new Error(`the metafield search did not find order ${id}: ${res.status} ${JSON.stringify(body)}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  await mkdir(dataDir, { recursive: true });
  log(`Store: ${size.orders} orders in ${path.relative(root, dataDir)}`);
  const database = await openDatabase({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: 0, DB_POOL_MAX: 4 });
  let service: { url: string; child: ChildProcess } | undefined;
  try {
    let rows = 0;
    let shown = 0;
    const seeded = await seedIfEmpty(database.orm, size, (_table, n) => {
      rows += n;
      if (rows - shown >= 250_000) log(`  seeding… ${(shown = rows)} rows`);
    });
    log(seeded ? `  seeded ${rows} rows` : '  reusing the store already there');
    await ensureFirstToken(database.orm.em.fork(), ADMIN_TOKEN);
    await ensureMetafields(database.url);
    service = await startService(database.url);
    await check(service.url);
    log(`Warming up each side for ${Math.min(duration, 5)} s…`);
    for (const side of SIDES) await drive(service.url, side, Math.min(duration, 5));
    const loads = new Map<string, Load[]>(SIDES.map((side) => [side.name, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const side of SIDES) {
        const load = await drive(service.url, side, duration);
        loads.get(side.name)!.push(load);
        log(
          `  round ${round} ${side.name}: ${load.rps.toFixed(0)} req/s p50 ${load.p50} ms ` +
            `mean ${load.mean.toFixed(2)} ms p99 ${load.p99} ms`,
        );
      }
    }
    const summary = Object.fromEntries(
      SIDES.map((side) => {
        const all = loads.get(side.name)!;
        const p50 = median(all.map((l) => l.p50));
        return [
          side.name,
          { rps: median(all.map((l) => l.rps)), p50, mean: median(all.map((l) => l.mean)), rounds: all },
        ];
      }),
    );
    const [byCustomer, byMetafield, plain, expanded] = SIDES.map((side) => summary[side.name]);
    const searchRatio = Number((byMetafield.p50 / Math.max(byCustomer.p50, 0.001)).toFixed(2));
    const listRatio = Number((expanded.rps / plain.rps).toFixed(2));
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const meanRatio = Number((byMetafield.mean / byCustomer.mean).toFixed(2));
    const searchMet = verdict(searchRatio <= METAFIELD_SEARCH_P50_GOAL);
    log(
      `metafield search p50 ${byMetafield.p50} ms vs customer id search p50 ${byCustomer.p50} ms: ` +
        `${searchRatio} × (goal ≤ ${METAFIELD_SEARCH_P50_GOAL}: ${searchMet}); mean latency ${meanRatio} ×`,
    );
    log(
      `GET /orders?size=20&expand=metafields ${expanded.rps.toFixed(0)} req/s vs ${plain.rps.toFixed(0)} req/s: ` +
        `${listRatio} × (goal ≥ ${EXPANDED_LIST_RPS_GOAL}: ${verdict(listRatio >= EXPANDED_LIST_RPS_GOAL)})`,
    );
    const out = {
      command: `npm run bench:metafields -- ${process.argv.slice(2).join(' ')}`.trim(),
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))) },
      store: { ...size, metafieldsPerOrder: 3 },
      connections,
      durationSeconds: duration,
      rounds,
      scenarios: summary,
      goals: {
        metafieldSearchP50OverCustomerSearch: { ratio: searchRatio, meanRatio, goal: METAFIELD_SEARCH_P50_GOAL },
        expandedListRpsOverPlain: { ratio: listRatio, goal: EXPANDED_LIST_RPS_GOAL },
      },
    };
    const file = path.join(root, 'bench/results', `metafields-orders-${size.orders}.json`);
    await writeFile(file, `${JSON.stringify(out, null, 2)}\n`);
    log(`Wrote ${path.relative(root, file)}`);
  } finally {
    if (service && service.child.exitCode === null) {
      const exited = new Promise((resolve) => service!.child.once('exit', resolve));
      service.child.kill('SIGTERM');
      await exited;
    }
    await database.close();
  }
}

await main();
