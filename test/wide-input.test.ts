// Issue #25 item 1: however wide or many-valued the input, the answer stays small. An object holds
// at most INPUT_LIMITS.keys keys and an input INPUT_LIMITS.values values (counted at the edge, before
// schema validation or the domain), and a problem names at most INPUT_LIMITS.reported fields with
// `errors_omitted` (GraphQL: `fieldsOmitted`) counting the rest; an Idempotency-Key keeps only that.
import { INPUT_LIMITS } from '../src/domain/input-limits.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const keys = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 1]));
const orderId = async () => (await service.sql<{ id: number }>('select id from orders order by id limit 1'))[0].id;
const fulfilmentCount = async () =>
  (await service.sql<{ n: number }>('select count(*)::int as n from fulfilment'))[0].n;
const tooManyKeys = `may hold at most ${INPUT_LIMITS.keys} keys`;
const tooManyValues = `may hold at most ${INPUT_LIMITS.values} values in all`;
/** An answer's size in bytes: every refusal here stays far below this. */
const SMALL = 8192;

describe('keys per object', () => {
  it('a body with more keys than the limit is a 422 naming the body, before any per-key work', async () => {
    const res = await service.send('PATCH', `/api/v1/orders/${await orderId()}`, keys(INPUT_LIMITS.keys + 1));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'body', message: tooManyKeys }]);
    expect(res.body.errors_omitted).toBeUndefined();
  });

  it('a nested object over the limit is named by its path', async () => {
    const items = [{ id: 1, quantity: 1 }, keys(INPUT_LIMITS.keys + 1)];
    const res = await service.send('POST', `/api/v1/orders/${await orderId()}/fulfilments`, { items });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'items[1]', message: tooManyKeys }]);
  });

  it('a search filter over the limit is refused the same way', async () => {
    const res = await service.send('POST', '/api/v1/orders/search', keys(INPUT_LIMITS.keys + 1));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'body', message: tooManyKeys }]);
  });

  it('GraphQL variables over the limit are BAD_USER_INPUT naming the variable, or the variables', async () => {
    const query = 'mutation($input: OrderPatch!) { updateOrder(id: 1, input: $input) { id } }';
    const wide = await service.graphql(query, { input: keys(INPUT_LIMITS.keys + 1) });
    const refused = (field: string) => ({ code: 'BAD_USER_INPUT', fields: [{ field, message: tooManyKeys }] });
    expect(wide.body.errors[0].extensions).toEqual(refused('$input'));
    const many = await service.graphql(query, { input: { notes: 'x' }, ...keys(INPUT_LIMITS.keys, 'v') });
    expect(many.body.errors[0].extensions).toEqual(refused('variables'));
    expect(Buffer.byteLength(many.text)).toBeLessThan(SMALL);
  });
});

describe('values per input', () => {
  it('a body of nested lists holding more values than the limit is a 422 naming the body', async () => {
    const perList = INPUT_LIMITS.list;
    const lists = Math.ceil(INPUT_LIMITS.values / perList) + 1;
    const body = Array.from({ length: lists }, (_, i) => ({ id: i + 1, items: Array(perList).fill(1) }));
    const res = await service.send('PATCH', `/api/v1/orders/${await orderId()}/fulfilments`, body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'body', message: tooManyValues }]);
  });
});

describe('field errors in one answer', () => {
  it(`name the first ${INPUT_LIMITS.reported} and count the rest, in errors and in detail`, async () => {
    const before = await fulfilmentCount();
    // 150 items of 100 unknown keys: 15 000 unknown keys and 300 missing ones, all within the limits.
    const items = Array.from({ length: 150 }, () => keys(INPUT_LIMITS.keys));
    const res = await service.send('POST', `/api/v1/orders/${await orderId()}/fulfilments`, { items });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(INPUT_LIMITS.reported);
    expect(res.body.errors[0]).toEqual({ field: expect.stringMatching(/^items\[0\]\./), message: expect.any(String) });
    expect(res.body.errors_omitted).toBe(150 * (INPUT_LIMITS.keys + 2) - INPUT_LIMITS.reported);
    expect(res.body.detail).toMatch(new RegExp(`^Invalid request body: .+; and ${res.body.errors_omitted} more$`));
    expect(Buffer.byteLength(res.text)).toBeLessThan(SMALL);
    expect(await fulfilmentCount()).toBe(before);
  });

  it('a body with exactly the most keys still names each unknown one, up to the cap', async () => {
    const res = await service.send('PATCH', `/api/v1/orders/${await orderId()}`, keys(INPUT_LIMITS.keys));
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(INPUT_LIMITS.reported);
    expect(res.body.errors[0]).toEqual({ field: 'k0', message: 'is not a field of this request' });
    expect(res.body.errors_omitted).toBe(INPUT_LIMITS.keys - INPUT_LIMITS.reported);
  });

  it('a field path longer than 500 characters keeps its start and end in the answer', async () => {
    const long = `a${'x'.repeat(5000)}z`;
    const res = await service.send('PATCH', `/api/v1/orders/${await orderId()}`, { [long]: 1 });
    expect(res.status).toBe(422);
    const field = `a${'x'.repeat(248)}…${'x'.repeat(249)}z`;
    expect(res.body.errors).toEqual([{ field, message: 'is not a field of this request' }]);
    expect(Buffer.byteLength(res.text)).toBeLessThan(2048);
  });

  it('domain field errors are capped alike: REST errors_omitted, GraphQL fieldsOmitted', async () => {
    const [{ id }] = await service.sql<{ id: number }>('select id from product order by id limit 1');
    const before = await service.sql('select * from product_variant where product_id = ? order by id', [id]);
    const bad = 30; // each variant names a value its option does not have: one field error each
    const variants = Array.from({ length: bad }, (_, i) => ({ variant: [`X${i}`], price: 1 }));
    const options = [{ title: 'Size', values: ['S'] }];
    const rest = await service.send('PATCH', `/api/v1/products/${id}`, { is_multi: true, options, variants });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toHaveLength(INPUT_LIMITS.reported);
    const named = rest.body.errors.map((e: { field: string }) => e.field);
    expect(named.every((field: string) => /^variants\[\d+\]\.variant\[0\]$/.test(field))).toBe(true);
    expect(rest.body.errors_omitted).toBe(bad - INPUT_LIMITS.reported);
    expect(rest.body.detail).toMatch(new RegExp(`; and ${bad - INPUT_LIMITS.reported} more$`));
    const mutation = `mutation($input: ProductPatch!) { updateProduct(id: ${id}, input: $input) { id } }`;
    const gql = await service.graphql(mutation, {
      input: { isMulti: true, options, variants: variants.map((v) => ({ ...v, price: '1' })) },
    });
    const { extensions, message } = gql.body.errors[0];
    expect(extensions.code).toBe('BAD_USER_INPUT');
    expect(extensions.fields).toHaveLength(INPUT_LIMITS.reported);
    expect(extensions.fieldsOmitted).toBe(bad - INPUT_LIMITS.reported);
    expect(message).toMatch(new RegExp(`; and ${bad - INPUT_LIMITS.reported} more$`));
    expect(await service.sql('select * from product_variant where product_id = ? order by id', [id])).toEqual(before);
  });
});

describe('with an Idempotency-Key', () => {
  it('a body refused at the edge claims no key; a refused write keeps its small answer and replays it', async () => {
    const id = await orderId();
    const edge = { 'idempotency-key': 'wide-edge' };
    const wide = await service.send('PATCH', `/api/v1/orders/${id}`, keys(5000), undefined, edge);
    expect(wide.status).toBe(422);
    expect(await service.sql("select key from idempotency_key where key = 'wide-edge'")).toEqual([]);
    const headers = { 'idempotency-key': 'wide-schema' };
    const first = await service.send('PATCH', `/api/v1/orders/${id}`, keys(INPUT_LIMITS.keys), undefined, headers);
    expect(first.status).toBe(422);
    const [kept] = await service.sql<{ size: number }>(
      "select length(response::text)::int as size from idempotency_key where key = 'wide-schema'",
    );
    expect(kept.size).toBeLessThan(SMALL);
    const again = await service.send('PATCH', `/api/v1/orders/${id}`, keys(INPUT_LIMITS.keys), undefined, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});
