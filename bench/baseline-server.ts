// The benchmark's baseline: a minimal hand-written Koa + `pg` server answering the benchmarked
// reads with the same JSON as the service, each through one hand-tuned SQL statement that builds
// the JSON in PostgreSQL (plus the token lookup, as the service does). `POST /graphql` answers
// the benchmark's GraphQL operations (bench/graphql-queries.ts), recognised by their exact text,
// each with one statement that builds the whole `{"data": …}` answer. Bench code only: no
// validation beyond what the scenarios send, no GraphQL execution, no ORM. Run as a child process
// by bench/run.ts (`node dist/bench/baseline-server.js`, DATABASE_URL, PORT=0, ADMIN_TOKEN). The write mix
// (POST + DELETE fulfilment) is answered by hand-written transactions: bench/baseline-writes.ts.

import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import Koa from 'koa';
import pg from 'pg';
import {
  createFulfilment,
  deleteFulfilment,
  poolTransaction,
  type Transaction,
  WriteRefused,
} from './baseline-writes.js';
import { CUSTOMER_SEARCH, ORDERS_PAGE, Q1, Q1_WITHOUT_COUNT, Q2, Q3, Q4 } from './graphql-queries.js';

type Query = (text: string, params?: unknown[]) => Promise<pg.QueryResult>;

// Whole seconds, rounded down as the service's Timestamp scalar does (a cast to bigint would round).
const epoch = (column: string) => `floor(extract(epoch from ${column}))::bigint`;
const addressBlock = (prefix: string, company = true) =>
  `json_build_object('first_name', ${prefix}_first_name,
    'last_name', ${prefix}_last_name,${company ? ` 'company', ${prefix}_company,` : ''}
    'street', ${prefix}_street, 'suite', ${prefix}_suite, 'city', ${prefix}_city,
      'country', ${prefix}_country, 'state', ${prefix}_state, 'zip', ${prefix}_zip)`;
const recordItems = (table: string, key: string, id: string) =>
  `coalesce((select json_agg(json_build_object('id', x.line_item_id, 'quantity', x.quantity) order by x.line_item_id)
    from ${table} x where x.${key} = ${id}), '[]')`;

/** One order as the REST layer shows it, from row `o`. */
/** An order in its REST shape (every relation the list shows), hand-written; also the export scenario's limit. */
export const ORDER_JSON = `json_build_object(
  'id', o.id, 'display_number',
    (select order_number_prefix || o.id || order_number_suffix from store_settings where id = 1),
  'email', o.email, 'status', o.status, 'paid', o.paid, 'discounts', o.discounts,
  'shipping', json_build_object('description', o.shipping_description, 'price', o.shipping_price::text),
  'tax', o.tax::text, 'total', o.total::text, 'ip', o.ip,
  'items', coalesce((select json_agg(json_build_object(
      'data', json_build_object('id', li.id, 'product_id', li.product_ref, 'title', li.title,
        'is_multi', li.is_multi, 'type', li.type,
        'is_giftcard', li.is_giftcard, 'shipping_weight', li.shipping_weight, 'vendor', li.vendor,
          'auto_fulfilment', li.auto_fulfilment,
        'track_inventory', li.track_inventory, 'sku', li.sku, 'price', li.price::text,
          'compare_price', li.compare_price::text,
        'image', li.image, 'image_max_size', li.image_max_size,
          'variant', json_build_object('id', li.variant_ref, 'variant', li.variant_values)),
      'status', json_build_object('quantity', li.quantity, 'not_fulfilled', li.not_fulfilled, 'fulfilled', li.fulfilled,
        'shipped', li.shipped, 'restocked', li.restocked)
    ) order by li.id) from line_item li where li.order_id = o.id), '[]'),
  'fulfilments', coalesce((select json_agg(json_build_object('id', f.id, 'warehouse', f.warehouse_id,
    'items', ${recordItems('fulfilment_item', 'fulfilment_id', 'f.id')},
      'created_at', ${epoch('f.created_at')}, 'updated_at', ${epoch('f.updated_at')})
        order by f.id) from fulfilment f where f.order_id = o.id), '[]'),
  'shipments', coalesce((select json_agg(json_build_object('id', s.id, 'fulfilment_id', s.fulfilment_id,
    'tracking_number', s.tracking_number,
      'tracking_url', c.url || s.tracking_number, 'shipping_carrier', s.carrier_id,
        'items', ${recordItems('shipment_item', 'shipment_id', 's.id')},
      'notify', s.notify, 'created_at', ${epoch('s.created_at')},
        'updated_at', ${epoch('s.updated_at')}) order by s.id)
    from shipment s join shipping_carrier c on c.id = s.carrier_id where s.order_id = o.id), '[]'),
  'restocks', coalesce((select json_agg(json_build_object('id', r.id, 'warehouse', r.warehouse_id,
    'items', ${recordItems('restock_item', 'restock_id', 'r.id')},
      'created_at', ${epoch('r.created_at')}) order by r.id) from restock r where r.order_id = o.id), '[]'),
  'customer', (select json_build_object('id', cu.id, 'email', cu.email,
    'first_name', cu.first_name, 'last_name', cu.last_name) from customer cu where cu.id = o.customer_id),
  'address', json_build_object('shipping', ${addressBlock('o.shipping')},
    'billing', ${addressBlock('o.billing')}, 'phone', o.phone),
  'payment', json_build_object('type', o.payment_type, 'last4', o.payment_last4),
  'conversion', json_build_object('landing_page', o.landing_page, 'referrer', o.referrer),
  'risk_level', json_build_object('ip_fail', o.ip_fail, 'address_fail', o.address_fail,
    'zip_fail', o.zip_fail, 'cvc_fail', o.cvc_fail),
  'refunded', o.refunded::text, 'refund_possible', o.refund_possible, 'order_date', ${epoch('o.order_date')},
  'updated_at', ${epoch('o.updated_at')}, 'notes', o.notes)`;

const IMAGE_JSON = (alias: string) =>
  `json_build_object('id', ${alias}.id, 'path', ${alias}.path, 'max_size', ${alias}.max_size)`;

/** A record's metafields as REST shows them, `{"namespace.key": typed value}` in name order. */
const metafieldsJson = (owner: string, id: string) =>
  `coalesce((select json_object_agg(m.namespace || '.' || m.key,
    case when m.type in ('number_integer', 'boolean', 'json') then m.value::json else to_json(m.value) end
    order by m.namespace, m.key)
    from metafield m where m.${owner}_id = ${id}), '{}')`;

/** One product with expand=all, from row `p`. */
const PRODUCT_JSON = `json_build_object(
  'id', p.id, 'title', p.title, 'is_multi', p.is_multi, 'type', p.type,
  'collections', coalesce((select json_agg(cp.collection_id order by cp.collection_id)
    from collection_product cp join collection c on c.id = cp.collection_id and c.type = 0
      where cp.product_id = p.id), '[]'),
  'tags', to_json(p.tags), 'shipping_weight', p.shipping_weight,
    'auto_fulfilment', p.auto_fulfilment, 'track_inventory', p.track_inventory,
  'vendor', p.vendor, 'sku', p.sku, 'seo_meta', p.seo_meta,
    'seo_title', p.seo_title, 'seo_url', p.seo_url, 'is_template', p.is_template,
  'is_draft', p.is_draft, 'price', p.price, 'compare_price', p.compare_price, 'created_at', ${epoch('p.created_at')},
  'updated_at', coalesce(${epoch('p.updated_at')}, 0),
  'textareas', coalesce((select json_agg(json_build_object('name', t.name, 'text', t.text) order by t.position, t.id)
    from product_textarea t where t.product_id = p.id), '[]'),
  'images', coalesce((select json_agg(${IMAGE_JSON('i')} order by pi.position, pi.id)
    from product_image pi join image i on i.id = pi.image_id where pi.product_id = p.id), '[]'),
  'options', coalesce((select json_agg(json_build_object('title', po.title, 'changes_look', po.changes_look,
    'values', to_json(po.values),
      'thumbnails', coalesce((select json_agg(case when th.color is not null
        then json_build_object('value', th.value, 'color', th.color)
          else json_build_object('value', th.value,
            'image', (select ${IMAGE_JSON('ti')} from image ti where ti.id = th.image_id))
              end order by th.position, th.id)
        from option_thumbnail th where th.option_id = po.id), '[]'))
          order by po.position, po.id) from product_option po where po.product_id = p.id), '[]'),
  'variants', coalesce((select json_agg(json_build_object('id', v.id, 'variant', to_json(v.option_values),
    'price', v.price, 'compare_price', v.compare_price,
      'sku', v.sku, 'default', v.is_default, 'ignore', v.ignore,
      'images', coalesce((select json_agg(${IMAGE_JSON('vi')} order by l.position, l.id)
        from variant_image l join image vi on vi.id = l.image_id where l.variant_id = v.id), '[]'),
      'metafields', ${metafieldsJson('product_variant', 'v.id')})
    order by v.position, v.id) from product_variant v where v.product_id = p.id), '[]'),
  'metafields', ${metafieldsJson('product', 'p.id')})`;

/** One customer, from row `c`. */
const CUSTOMER_JSON = `json_build_object(
  'id', c.id, 'email', c.email, 'first_name', c.first_name, 'last_name', c.last_name,
  'address', coalesce((select json_agg(json_build_object('id', a.id, 'shipping', ${addressBlock('a.shipping')},
    'billing', ${addressBlock('a.billing', false)}, 'phone', a.phone)
    order by a.position, a.id) from customer_address a where a.customer_id = c.id), '[]'),
  'payment', coalesce((select json_agg(json_build_object('type', m.type, 'last4', m.last4) order by m.id)
    from customer_payment_method m where m.customer_id = c.id), '[]'),
  'notes', c.notes,
  'statistics', json_build_object('last_purchase', ${epoch('c.last_purchase')}, 'order_count', c.order_count,
    'lifetime_spent', round(c.lifetime_spent)::bigint),
  'orders', coalesce((select json_agg(o.id order by o.id) from orders o where o.customer_id = c.id), '[]'),
  'tags', coalesce((select json_agg(distinct t.tag order by t.tag) from orders o join line_item li on li.order_id = o.id
    join product p on p.id = li.product_id
    cross join lateral unnest(p.tags) t(tag) where o.customer_id = c.id), '[]'),
  'created_at', ${epoch('c.created_at')}, 'updated_at', coalesce(${epoch('c.updated_at')}, 0),
  'erased_at', ${epoch('c.erased_at')})`;

/** Line items as the GraphQL scenarios select them (`id title price counters { quantity }`), of order row `o`. */
const GQL_LINE_ITEMS = `coalesce((select json_agg(json_build_object('id', li.id,
  'title', li.title, 'price', li.price::text,
    'counters', json_build_object('quantity', li.quantity)) order by li.id)
      from line_item li where li.order_id = o.id), '[]')`;

/** Q1's items: the 20 newest orders, each with its line items. */
/** What the service reports beside each answer: the operation's cost (each of these costs one request). */
const GQL_EXTENSIONS = `json_build_object('cost', 1)`;

/** GraphQL's FulfilmentStatus enum value of the order's stored status (REST shows the integer). */
const GQL_STATUS = `(array['NOT_FULFILLED', 'PARTIALLY_FULFILLED', 'PARTIALLY_FULFILLED_AND_SHIPPED',
  'FULFILLED', 'PARTIALLY_SHIPPED', 'SHIPPED'])[o.status + 1]`;

const GQL_NEWEST_ORDERS = `coalesce((select json_agg(json_build_object('id', o.id,
  'total', o.total::text, 'email', o.email, 'status', ${GQL_STATUS},
    'lineItems', ${GQL_LINE_ITEMS}) order by o.id desc)
      from (select * from orders order by id desc limit 20) o), '[]')`;

/** GraphQL sort terms the users workload sends (`field:direction`), mapped to ORDER BY on `o`. */
const GQL_ORDER_SORTS: Record<string, string> = {
  'ID:DESC': 'o.id desc',
  'ID:ASC': 'o.id asc',
  'TOTAL:DESC': 'o.total desc, o.id desc',
  'TOTAL:ASC': 'o.total asc, o.id asc',
  'ORDER_DATE:DESC': 'o.order_date desc, o.id desc',
  'ORDER_DATE:ASC': 'o.order_date asc, o.id asc',
};

/** `%term%` with LIKE's wildcards escaped: a case-insensitive substring, as the service matches. */
const substringPattern = (term: unknown) => `%${String(term).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The same pattern lowered, for LIKE on a customer's stored lower-case copy (`*_folded`), as the
 * service searches them (src/domain/text-fold.ts). The bench's terms are ASCII, which JavaScript
 * lowers as PostgreSQL does.
 */
const foldedPattern = (term: unknown) => substringPattern(term).toLowerCase();

/** The users workload's page of orders in a given sort: the ORDER BY (whitelisted) is part of the text. */
function gqlOrdersPage(variables: Record<string, unknown>): { sql: string; params: unknown[] } {
  const sort = (variables.sort as { field: string; direction: string }[] | undefined)?.[0];
  const orderBy = GQL_ORDER_SORTS[sort ? `${sort.field}:${sort.direction}` : 'ID:DESC'];
  if (!orderBy) throw new HttpError(400);
  const page = Number(variables.page ?? 1);
  return {
    sql: `select json_build_object('data', json_build_object('orders', json_build_object(
        'totalCount', (select count(*) from orders)::int,
        'items', coalesce((select json_agg(json_build_object('id', o.id, 'total', o.total::text, 'email', o.email,
            'status', ${GQL_STATUS}, 'lineItems', ${GQL_LINE_ITEMS}) order by ${orderBy})
          from (select * from orders o order by ${orderBy} limit 20 offset $1) o), '[]'))),
        'extensions', ${GQL_EXTENSIONS})::text as json`,
    params: [(page - 1) * 20],
  };
}

interface GraphQLBaseline {
  scope: string;
  /**
   * One statement returning the whole answer as text in column `json`;
   * a function of the variables when its text depends on them.
   */
  sql: string | ((variables: Record<string, unknown>) => string);
  params(variables: Record<string, unknown>): unknown[];
}

/**
 * The benchmark's GraphQL operations by their exact text, each answered by one statement. The
 * customer of an order falls back to the order's e-mail and empty names when the customer row is
 * gone, as `Order.customer` does.
 */
const GRAPHQL_BASELINES = new Map<string, GraphQLBaseline>([
  [
    Q1,
    {
      scope: 'read_orders',
      sql: `select json_build_object('data', json_build_object('orders', json_build_object(
        'totalCount', (select count(*) from orders)::int,
          'items', ${GQL_NEWEST_ORDERS})), 'extensions', ${GQL_EXTENSIONS})::text as json`,
      params: () => [],
    },
  ],
  [
    Q1_WITHOUT_COUNT,
    {
      scope: 'read_orders',
      sql: `select json_build_object('data', json_build_object('orders',
      json_build_object('items', ${GQL_NEWEST_ORDERS})),
      'extensions', ${GQL_EXTENSIONS})::text as json`,
      params: () => [],
    },
  ],
  [
    Q2,
    {
      scope: 'read_orders',
      sql: `select json_build_object('data', json_build_object('order', (select json_build_object(
        'id', o.id, 'email', o.email, 'status', ${GQL_STATUS}, 'total', o.total::text, 'lineItems', ${GQL_LINE_ITEMS},
        'customer', json_build_object('id', o.customer_id, 'email', coalesce(cu.email, o.email),
          'firstName', coalesce(cu.first_name, ''), 'lastName', coalesce(cu.last_name, '')),
        'fulfilments', coalesce((select json_agg(json_build_object('id', f.id, 'createdAt', ${epoch('f.created_at')},
          'warehouse', f.warehouse_id,
            'items', coalesce((select json_agg(json_build_object('id', x.line_item_id, 'quantity', x.quantity)
              order by x.line_item_id)
                from fulfilment_item x where x.fulfilment_id = f.id), '[]'))
          order by f.id) from fulfilment f where f.order_id = o.id), '[]'))
      from orders o left join customer cu on cu.id = o.customer_id where o.id = $1)),
        'extensions', ${GQL_EXTENSIONS})::text as json`,
      params: (variables) => [Number(variables.id)],
    },
  ],
  [
    Q3,
    {
      scope: 'read_products',
      sql: `select json_build_object('data', json_build_object('products',
      json_build_object('items', coalesce((select json_agg(json_build_object(
        'id', p.id, 'title', p.title,
        'variants', coalesce((select json_agg(json_build_object('id', v.id, 'price', v.price::text, 'sku', v.sku)
          order by v.position, v.id)
          from product_variant v where v.product_id = p.id), '[]'),
        'options', coalesce((select json_agg(json_build_object('title', po.title, 'values', to_json(po.values))
          order by po.position, po.id)
          from product_option po where po.product_id = p.id), '[]'),
        'images', coalesce((select json_agg(json_build_object('id', i.id, 'path', i.path, 'maxSize', i.max_size)
          order by pi.position, pi.id)
          from product_image pi join image i on i.id = pi.image_id where pi.product_id = p.id), '[]'))
      order by p.id desc) from (select * from product order by id desc limit 50) p), '[]'))),
        'extensions', ${GQL_EXTENSIONS})::text as json`,
      params: () => [],
    },
  ],
  [
    Q4,
    {
      scope: 'read_customers',
      sql: `select json_build_object('data', json_build_object('customers', json_build_object(
        'totalCount', (select count(*) from customer c where c.last_name_folded like any($1))::int,
        'items', coalesce((select json_agg(json_build_object('id', c.id, 'email', c.email, 'firstName', c.first_name,
          'lastName', c.last_name) order by c.id desc)
          from (select * from customer c where c.last_name_folded like any($1) order by id desc limit 20) c), '[]'))),
            'extensions', ${GQL_EXTENSIONS})::text as json`,
      params: () => [['%ove%']],
    },
  ],
  [
    CUSTOMER_SEARCH,
    {
      scope: 'read_customers',
      sql: `select json_build_object('data', json_build_object('customers', json_build_object(
        'totalCount', (select count(*) from customer c where c.email_folded like any($1))::int,
        'items', coalesce((select json_agg(json_build_object('id', c.id, 'email', c.email, 'firstName', c.first_name,
            'lastName', c.last_name) order by c.id desc)
          from (select * from customer c where c.email_folded like any($1) order by id desc limit 20) c), '[]'))),
        'extensions', ${GQL_EXTENSIONS})::text as json`,
      params: (variables) => [((variables.email as unknown[] | undefined) ?? []).map(foldedPattern)],
    },
  ],
  [
    ORDERS_PAGE,
    {
      scope: 'read_orders',
      sql: (variables) => gqlOrdersPage(variables).sql,
      params: (variables) => gqlOrdersPage(variables).params,
    },
  ],
]);

/** Sort keys the scenarios use, mapped to ORDER BY (the id tie-breaker follows the last term's direction). */
const ORDER_SORTS: Record<string, string> = {
  '': 'o.id desc',
  '!id': 'o.id desc',
  id: 'o.id asc',
  '!total': 'o.total desc, o.id desc',
  total: 'o.total asc, o.id asc',
  '!order_date': 'o.order_date desc, o.id desc',
  order_date: 'o.order_date asc, o.id asc',
};

/** Customer search keys the scenarios send, mapped to their column (a substring match each). */
const CUSTOMER_SEARCH_COLUMNS: Record<string, string> = {
  last_name: 'c.last_name_folded',
  first_name: 'c.first_name_folded',
  email: 'c.email_folded',
};

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

function intParam(value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new HttpError(400);
  return n;
}

function links(base: string, querystring: string, page: number, size: number, total: number) {
  const pageCount = Math.ceil(total / size);
  const last = Math.max(pageCount, 1);
  const href = (p: number) => {
    const params = new URLSearchParams(querystring);
    params.set('page', String(p));
    return { href: `${base}?${params.toString()}` };
  };
  const out: Record<string, { href: string }> = { self: href(page), first: href(1), last: href(last) };
  if (page - 1 >= 1 && page - 1 <= last) out.prev = href(page - 1);
  if (page + 1 <= pageCount) out.next = href(page + 1);
  return { links: out, pageCount };
}

function sendList(ctx: Koa.Context, items: unknown[], page: number, size: number, total: number) {
  const base = `${ctx.protocol}://${ctx.host}${ctx.path}`;
  const { links: l, pageCount } = links(base, ctx.querystring, page, size, total);
  ctx.set({
    'X-Pagination-Total-Count': String(total),
    'X-Pagination-Page-Count': String(pageCount),
    'X-Pagination-Current-Page': String(page),
    'X-Pagination-Per-Page': String(size),
    Link: Object.entries(l)
      .map(([rel, { href }]) => `<${href}>; rel="${rel}"`)
      .join(', '),
  });
  ctx.body = { items, _links: l, _meta: { totalCount: total, perPage: size, currentPage: page, pageCount } };
}

async function readJson(ctx: Koa.Context): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
}

/**
 * The baseline app over a query function and, for the write mix, a transaction runner (the bench
 * counts statements by wrapping both).
 */
export function baselineApp(query: Query, transaction?: Transaction): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    try {
      const secret = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
      const hash = secret ? createHash('sha256').update(secret).digest('hex') : '';
      const { rows: tokens } = await query(
        'select id, name, scopes from api_token where secret_hash = $1 and revoked_at is null',
        [hash],
      );
      if (!tokens.length) throw new HttpError(401);
      const scopes: string[] = tokens[0].scopes;
      const need = (scope: string) => {
        if (!scopes.includes(scope)) throw new HttpError(403);
      };
      const path = ctx.path.replace(/^\/api\/v1/, '');
      let m: RegExpExecArray | null;
      if (ctx.method === 'GET' && path === '/orders') {
        need('read_orders');
        const size = intParam(ctx.query.size, 20, 250);
        const page = intParam(ctx.query.page, 1);
        const orderBy = ORDER_SORTS[String(ctx.query.sort ?? '')];
        if (!orderBy) throw new HttpError(400);
        const { rows } = await query(
          `select (select count(*) from orders)::int as total,
                  (select coalesce(json_agg(${ORDER_JSON} order by ${orderBy}), '[]')
                    from (select * from orders o order by ${orderBy} limit $1 offset $2) o) as items`,
          [size, (page - 1) * size],
        );
        return sendList(ctx, rows[0].items, page, size, rows[0].total);
      }
      if (ctx.method === 'GET' && (m = /^\/orders\/(\d+)\/page$/.exec(path))) {
        need('read_orders');
        const size = intParam(ctx.query.size, 20, 250);
        // Default sort (id desc): the orders before it are those with a greater id.
        const { rows } = await query(
          'select exists (select 1 from orders where id = $1) as found, ' +
            '(select count(*) from orders where id > $1)::int as before',
          [Number(m[1])],
        );
        if (!rows[0].found) throw new HttpError(404);
        ctx.body = { page: Math.floor(rows[0].before / size) + 1 };
        return;
      }
      if (ctx.method === 'GET' && (m = /^\/orders\/(\d+)$/.exec(path))) {
        need('read_orders');
        const { rows } = await query(`select ${ORDER_JSON} as json from orders o where o.id = $1`, [Number(m[1])]);
        if (!rows.length) throw new HttpError(404);
        ctx.body = rows[0].json;
        return;
      }
      if (ctx.method === 'GET' && path === '/products') {
        need('read_products');
        if (ctx.query.expand !== 'all') throw new HttpError(400);
        const size = intParam(ctx.query.size, 20, 250);
        const page = intParam(ctx.query.page, 1);
        const { rows } = await query(
          `select (select count(*) from product)::int as total,
                  (select coalesce(json_agg(${PRODUCT_JSON} order by p.id desc), '[]')
                    from (select * from product order by id desc limit $1 offset $2) p) as items`,
          [size, (page - 1) * size],
        );
        return sendList(ctx, rows[0].items, page, size, rows[0].total);
      }
      if (ctx.method === 'POST' && path === '/customers/search') {
        need('read_customers');
        const size = intParam(ctx.query.size, 20, 250);
        const page = intParam(ctx.query.page, 1);
        const body = await readJson(ctx);
        // Every key is one column's "any of these substrings"; the keys are ANDed.
        const params: unknown[] = [size, (page - 1) * size];
        const conditions = Object.entries(body).map(([key, value]) => {
          const column = CUSTOMER_SEARCH_COLUMNS[key];
          if (!column) throw new HttpError(422);
          params.push((Array.isArray(value) ? value : [value]).map(foldedPattern));
          return `${column} like any($${params.length})`;
        });
        const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
        const { rows } = await query(
          `select (select count(*) from customer c ${where})::int as total,
                  (select coalesce(json_agg(${CUSTOMER_JSON} order by c.id desc), '[]')
                    from (select * from customer c ${where} order by id desc limit $1 offset $2) c) as items`,
          params,
        );
        return sendList(ctx, rows[0].items, page, size, rows[0].total);
      }
      if (ctx.method === 'POST' && path === '/orders/search') {
        // The users workload's order searches: e-mail substrings or customer ids; a bare array.
        need('read_orders');
        const size = intParam(ctx.query.size, 20, 250);
        const page = intParam(ctx.query.page, 1);
        const body = await readJson(ctx);
        const params: unknown[] = [size, (page - 1) * size];
        const conditions = Object.entries(body).map(([key, value]) => {
          const values = Array.isArray(value) ? value : [value];
          if (key === 'email') params.push(values.map(substringPattern));
          else if (key === 'customer_id') params.push(values.map(Number));
          else throw new HttpError(422);
          const at = `$${params.length}`;
          return key === 'email' ? `o.email ilike any(${at})` : `o.customer_id = any(${at}::int[])`;
        });
        const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
        const { rows } = await query(
          `select (select count(*) from orders o ${where})::int as total,
                  (select coalesce(json_agg(${ORDER_JSON} order by o.id desc), '[]')
                    from (select * from orders o ${where} order by id desc limit $1 offset $2) o) as items`,
          params,
        );
        sendList(ctx, rows[0].items, page, size, rows[0].total);
        ctx.body = rows[0].items;
        return;
      }
      if (ctx.method === 'POST' && ctx.path === '/graphql') {
        const body = await readJson(ctx);
        const operation = GRAPHQL_BASELINES.get(String(body.query));
        if (!operation) throw new HttpError(400);
        need(operation.scope);
        const variables = (body.variables ?? {}) as Record<string, unknown>;
        const sql = typeof operation.sql === 'string' ? operation.sql : operation.sql(variables);
        const { rows } = await query(sql, operation.params(variables));
        ctx.type = 'application/json';
        ctx.body = rows[0].json;
        return;
      }
      if (transaction && (m = /^\/orders\/(\d+)\/fulfilments(?:\/(\d+))?$/.exec(path))) {
        // The write mix: one transaction, then the whole order as the answer (as GET /orders/{id}).
        need('write_orders');
        const actor = { id: tokens[0].id as number, name: tokens[0].name as string };
        const orderId = Number(m[1]);
        if (ctx.method === 'POST' && !m[2]) await createFulfilment(transaction, actor, orderId, await readJson(ctx));
        else if (ctx.method === 'DELETE' && m[2]) await deleteFulfilment(transaction, actor, orderId, Number(m[2]));
        else throw new HttpError(405);
        const { rows } = await query(`select ${ORDER_JSON} as json from orders o where o.id = $1`, [Number(m[1])]);
        ctx.status = ctx.method === 'POST' ? 201 : 200;
        ctx.body = rows[0].json;
        return;
      }
      throw new HttpError(404);
    } catch (error) {
      if (error instanceof WriteRefused) {
        ctx.status = error.status;
        ctx.body = { status: error.status };
        return;
      }
      if (!(error instanceof HttpError)) throw error;
      ctx.status = error.status;
      ctx.body = { status: error.status };
    }
  });
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX ?? 10) });
  const app = baselineApp((text, params) => pool.query(text, params), poolTransaction(pool));
  const server = createServer(app.callback());
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`Baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
