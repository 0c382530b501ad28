// POST /collections and PATCH /collections/{id}, manual and rule-based, and rule
// membership evaluated in SQL for every rule type × condition, checked against the same rules
// evaluated here in JS on a small catalogue this file creates.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;

interface Fixture {
  id: number;
  title: string;
  vendor: string | null;
  type: string;
  tags: string[];
  shippingWeight: number;
  /** Variant combinations with their prices (one empty combination for a single-variant product). */
  variants: { variant: string[]; price: string }[];
}

const single = (price: string) => [{ variant: [], price }];
const catalogue: Omit<Fixture, 'id'>[] = [
  {
    title: 'Red Cotton Shirt',
    vendor: 'Acme',
    type: 'Apparel',
    tags: ['summer', 'sale'],
    shippingWeight: 0.5,
    variants: single('19.99'),
  },
  {
    title: 'Blue Denim Jacket',
    vendor: 'Globex',
    type: 'Apparel',
    tags: ['winter'],
    shippingWeight: 1.2,
    variants: [
      { variant: ['S'], price: '49.00' },
      { variant: ['M'], price: '55.50' },
      { variant: ['XL'], price: '60.00' },
    ],
  },
  { title: 'Coffee Mug', vendor: null, type: 'Kitchen', tags: [], shippingWeight: 0.35, variants: single('8.50') },
  {
    title: 'Shirt Stand',
    vendor: 'acme industries',
    type: 'Furniture',
    tags: ['Sale-2024'],
    shippingWeight: 12,
    variants: single('120.00'),
  },
  {
    title: 'Travel Mug XL',
    vendor: 'Initech',
    type: 'kitchen',
    tags: ['travel', 'summer'],
    shippingWeight: 0.5,
    variants: [
      { variant: ['Red', 'M'], price: '15.00' },
      { variant: ['Red', 'XL'], price: '15.00' },
      { variant: ['Black', 'M'], price: '18.00' },
      { variant: ['Black', 'XL'], price: '20.00' },
    ],
  },
  {
    title: 'Gift Card',
    vendor: 'Acme',
    type: 'Gift Card',
    tags: ['gift'],
    shippingWeight: 0,
    variants: single('25.00'),
  },
  {
    title: 'Wool Socks',
    vendor: 'Globex',
    type: 'Apparel',
    tags: ['winter', 'sale'],
    shippingWeight: 0.1,
    variants: [
      { variant: ['M'], price: '9.99' },
      { variant: ['L'], price: '9.99' },
    ],
  },
];
const products: Fixture[] = [];

function optionsOf(variants: { variant: string[] }[]) {
  const titles = ['First', 'Second'];
  return variants[0].variant.map((_, i) => ({
    title: titles[i],
    values: [...new Set(variants.map((v) => v.variant[i]))],
  }));
}

beforeAll(async () => {
  service = await startTestService();
  // The rule tests need a catalogue whose every product the expectation knows: only the fixture.
  await service.sql('delete from product');
  for (const p of catalogue) {
    const multi = p.variants[0].variant.length > 0;
    const input = {
      title: p.title,
      vendor: p.vendor,
      type: p.type,
      tags: p.tags,
      shippingWeight: p.shippingWeight,
      ...(multi
        ? { isMulti: true, options: optionsOf(p.variants), variants: p.variants }
        : { price: p.variants[0].price }),
    };
    const res = await service.graphql('mutation ($input: ProductCreate!) { createProduct(input: $input) { id } }', {
      input,
    });
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    products.push({ ...p, id: res.body.data.createProduct.id });
  }
});
afterAll(() => service.stop());

const post = (body: unknown, token?: string) => service.send('POST', '/api/v1/collections', body, token);
const patch = (id: number, body: unknown, token?: string) =>
  service.send('PATCH', `/api/v1/collections/${id}`, body, token);
const read = async (id: number) => (await service.get(`/api/v1/collections/${id}?expand=products`)).body;
const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field);
const count = async () => (await service.sql<{ n: number }>('select count(*)::int as n from collection'))[0].n;
let slug = 0;
const base = (title: string) => ({ title, seo_title: title, seo_url: `c-${++slug}` });

// --- The rules in JS, as docs/decisions.md#collections describes them. ---------------------------------
interface Rule {
  type: number;
  condition: number;
  value: string | number;
}
const CONDITIONS: Record<number, number[]> = {
  0: [0, 1, 2, 3, 4],
  1: [0, 1, 2, 3, 4],
  2: [0, 1, 2, 3, 4],
  6: [0, 1, 2, 3, 4],
  3: [5, 6, 7, 8],
  5: [5, 6, 7, 8],
  4: [0, 3, 4],
};
const cents = (v: string | number) => Math.round(Number(v) * 100);

function textMatch(condition: number, text: string, value: string): boolean {
  const [t, v] = [text.toLowerCase(), value.toLowerCase()];
  return [t === v, t.startsWith(v), t.endsWith(v), t.includes(v), !t.includes(v)][condition];
}
function numberMatch(condition: number, a: number, b: number): boolean {
  return { 5: a === b, 6: a !== b, 7: a > b, 8: a < b }[condition]!;
}
function matches(p: Fixture, rule: Rule): boolean {
  const value = String(rule.value);
  switch (rule.type) {
    case 0:
      return textMatch(rule.condition, p.title, value);
    case 1:
      return textMatch(rule.condition, p.vendor ?? '', value);
    case 2:
      return textMatch(rule.condition, p.type, value);
    case 3:
      return p.variants.some((v) => numberMatch(rule.condition, cents(v.price), cents(value)));
    case 4:
      if (rule.condition === 0) return p.tags.some((t) => t.toLowerCase() === value.toLowerCase());
      if (rule.condition === 3) return p.tags.some((t) => t.toLowerCase().includes(value.toLowerCase()));
      return !p.tags.some((t) => t.toLowerCase().includes(value.toLowerCase()));
    case 5:
      return numberMatch(rule.condition, cents(p.shippingWeight), cents(value));
    case 6: {
      const titles = p.variants.map((v) => v.variant.join(' / '));
      // "does not contain": no variant's title contains the value; the others: some variant's does.
      return rule.condition === 4
        ? titles.every((t) => textMatch(4, t, value))
        : titles.some((t) => textMatch(rule.condition, t, value));
    }
    default:
      return false;
  }
}
const expected = (rules: Rule[], all: boolean) =>
  products
    .filter((p) => (all ? rules.every((r) => matches(p, r)) : rules.some((r) => matches(p, r))))
    .map((p) => p.id)
    .sort((a, b) => a - b);

const VALUES: Record<number, (string | number)[]> = {
  0: ['shirt', 'Coffee Mug', 'mug', 'RED', 'xl'],
  1: ['acme', 'Globex', 'industries', 'init'],
  2: ['apparel', 'KITCHEN', 'gift', 'card'],
  3: [15, '9.99', '49', 100, '0'],
  4: ['sale', 'SUMMER', 'winter', 'gif'],
  5: [0.5, '1', 12, '0.1', 0],
  6: ['XL', 'red / m', 'red', 'S', 'm'],
};
const table: Rule[] = Object.entries(CONDITIONS).flatMap(([type, conditions]) =>
  conditions.flatMap((condition) => VALUES[Number(type)].map((value) => ({ type: Number(type), condition, value }))),
);

describe('rule-based membership', () => {
  let id: number;
  beforeAll(async () => {
    const res = await post({ ...base('Rules'), type: 1, rules_match_condition: 0, rules: [table[0]] });
    expect(res.status).toBe(201);
    id = res.body.id;
    // Where the collection made is read: the same record, its ETag too.
    const location = res.headers.get('location')!;
    expect(location).toBe(`/api/v1/collections/${id}`);
    const read = await service.get(location);
    expect({ status: read.status, id: read.body.id, etag: read.headers.get('etag') }).toEqual({
      status: 200,
      id,
      etag: res.headers.get('etag'),
    });
  });

  it('covers every rule type with every condition valid for it', () => {
    const pairs = new Set(table.map((r) => `${r.type}:${r.condition}`));
    expect(pairs.size).toBe(4 * 5 + 2 * 4 + 3); // text fields × 0–4, price and weight × 5–8, tag × 0, 3, 4
  });

  it('has, for every rule type × condition, a value the fixture splits into members and non-members', () => {
    for (const pair of new Set(table.map((r) => `${r.type}:${r.condition}`))) {
      const sizes = table.filter((r) => `${r.type}:${r.condition}` === pair).map((r) => expected([r], false).length);
      expect(sizes.some((n) => n > 0 && n < products.length)).toBe(true);
    }
  });

  it.each(table.map((r) => [r.type, r.condition, r.value, r] as const))(
    'type %i condition %i value %j matches as in JS',
    async (_t, _c, _v, rule) => {
      const res = await patch(id, { ...base('Rules'), type: 1, rules_match_condition: 0, rules: [rule] });
      expect(res.status).toBe(200);
      expect((await read(id)).products).toEqual(expected([rule], false));
    },
  );

  // Pairs across fields, each with "match at least one" and "match all".
  const picks = [
    table[3],
    table.find((r) => r.type === 1 && r.condition === 0)!,
    table.find((r) => r.type === 2 && r.condition === 3)!,
    table.find((r) => r.type === 3 && r.condition === 8)!,
    table.find((r) => r.type === 4 && r.condition === 4)!,
    table.find((r) => r.type === 5 && r.condition === 7)!,
    table.find((r) => r.type === 6 && r.condition === 3)!,
  ];
  const combos = picks.flatMap((a, i) => picks.slice(i + 1).map((b) => [a, b]));
  it.each(
    combos.flatMap(
      (rules) =>
        [
          [0, rules],
          [1, rules],
        ] as const,
    ),
  )('rules_match_condition %i over %j', async (match, rules) => {
    const res = await patch(id, { ...base('Rules'), type: 1, rules_match_condition: match, rules });
    expect(res.status).toBe(200);
    const members = (await read(id)).products;
    expect(members).toEqual(expected(rules as Rule[], match === 1));
  });

  it('agrees between REST and GraphQL, paginated products included', async () => {
    await patch(id, {
      ...base('Rules'),
      type: 1,
      rules_match_condition: 0,
      rules: [
        { type: 2, condition: 0, value: 'apparel' },
        { type: 3, condition: 8, value: 20 },
      ],
    });
    const rest = await read(id);
    expect(rest.products.length).toBeGreaterThan(3);
    const gql = await service.graphql(
      `{ collection(id: ${id}) { productIds products(size: 250) { totalCount items { id } } ` +
        `page2: products(page: 2, size: 2) { items { id } pageCount } } }`,
    );
    const c = gql.body.data.collection;
    expect(c.productIds).toEqual(rest.products);
    expect(c.products.items.map((p: { id: number }) => p.id)).toEqual(rest.products);
    expect(c.products.totalCount).toBe(rest.products.length);
    expect(c.page2.items.map((p: { id: number }) => p.id)).toEqual(rest.products.slice(2, 4));
    expect(c.page2.pageCount).toBe(Math.ceil(rest.products.length / 2));
  });

  it('does not list rule-based collections in a product’s collections', async () => {
    const member = (await read(id)).products[0];
    expect((await service.get(`/api/v1/products/${member}`)).body.collections).not.toContain(id);
  });
});

describe('POST /collections', () => {
  it('creates a manual collection and answers it with its id (201)', async () => {
    const img = await service.graphql(
      'mutation { createImage(url: "https://img.example.com/c.png", maxSize: 640) { id } }',
    );
    const imageId = img.body.data.createImage.id;
    const members = [products[3].id, products[0].id, products[5].id];
    const res = await post({
      ...base('Staff picks 2'),
      type: 0,
      is_draft: true,
      description: 'Picked.',
      seo_meta: 'meta',
      match_products: members,
      images: [imageId],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      title: 'Staff picks 2',
      is_draft: true,
      description: 'Picked.',
      images: [imageId],
      type: 0,
      seo_meta: 'meta',
      match_products: members,
      rules_match_condition: null,
      rules: [],
      updated_at: 0,
    });
    const { products: expanded, ...stored } = await read(res.body.id);
    expect(stored).toEqual(res.body);
    expect(expanded).toEqual(members);
    const gql = await service.graphql(`{ collection(id: ${res.body.id}) { productIds products { items { id } } } }`);
    expect(gql.body.data.collection.productIds).toEqual(members);
    expect(gql.body.data.collection.products.items.map((p: { id: number }) => p.id)).toEqual(members);
    // Manual collections are listed in their products' collections.
    expect((await service.get(`/api/v1/products/${members[0]}`)).body.collections).toContain(res.body.id);
  });

  it('creates a rule-based collection, taking a rule value as a string or a number', async () => {
    const res = await post({
      ...base('Cheap'),
      type: 1,
      rules_match_condition: 1,
      rules: [
        { type: 3, condition: 8, value: 20 },
        { type: 0, condition: 3, value: 'mug' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.rules).toEqual([
      { type: 3, condition: 8, value: '20' },
      { type: 0, condition: 3, value: 'mug' },
    ]);
    expect(res.body.match_products).toEqual([]);
    expect((await read(res.body.id)).products).toEqual(
      expected(
        [
          { type: 3, condition: 8, value: 20 },
          { type: 0, condition: 3, value: 'mug' },
        ],
        true,
      ),
    );
  });

  it('derives an empty seo_url from the title, unique by a suffix', async () => {
    const a = await post({ title: 'Summer Sale!', seo_title: 't', seo_url: '', type: 0, match_products: [] });
    const b = await post({ title: 'Summer sale', seo_title: 't', seo_url: '', type: 0, match_products: [] });
    expect([a.body.seo_url, b.body.seo_url]).toEqual(['summer-sale', 'summer-sale-2']);
    const taken = await post({ title: 'Other', seo_title: 't', seo_url: 'summer-sale', type: 0, match_products: [] });
    expect(taken.status).toBe(409);
    expect(taken.body.errors.map((e: { field: string }) => e.field)).toEqual(['seo_url']);
  });

  const valid = { title: 'V', seo_title: 'V', seo_url: 'v-unused', type: 0, match_products: [] as number[] };
  const rule = (r: Partial<Rule>) => ({
    ...valid,
    type: 1,
    match_products: undefined,
    rules_match_condition: 0,
    rules: [{ type: 0, condition: 0, value: 'x', ...r }],
  });
  const refusals: [string, () => unknown, string[]][] = [
    ['missing required fields', () => ({}), ['title', 'type', 'seo_title', 'seo_url']],
    ['an unknown type', () => ({ ...valid, type: 2 }), ['type']],
    ['a manual collection without match_products', () => ({ ...valid, match_products: undefined }), ['match_products']],
    ['an unknown product id', () => ({ ...valid, match_products: [products[0].id, 999999] }), ['match_products[1]']],
    [
      'a repeated product id',
      () => ({ ...valid, match_products: [products[0].id, products[0].id] }),
      ['match_products[1]'],
    ],
    ['rules on a manual collection', () => ({ ...valid, rules: [{ type: 0, condition: 0, value: 'x' }] }), ['rules']],
    [
      'a rule-based collection without rules or match condition',
      () => ({ ...valid, type: 1, match_products: undefined }),
      ['rules', 'rules_match_condition'],
    ],
    [
      'match_products on a rule-based collection',
      () => ({ ...rule({}), match_products: [products[0].id] }),
      ['match_products'],
    ],
    [
      'a match condition other than 0 and 1',
      () => ({ ...rule({}), rules_match_condition: 2 }),
      ['rules_match_condition'],
    ],
    ['an empty rule list', () => ({ ...rule({}), rules: [] }), ['rules']],
    ['an unknown rule type', () => rule({ type: 7 }), ['rules[0].type']],
    ['a text condition on price', () => rule({ type: 3, condition: 0, value: '5' }), ['rules[0].condition']],
    ['a numeric condition on title', () => rule({ type: 0, condition: 7 }), ['rules[0].condition']],
    ['"starts with" on tags', () => rule({ type: 4, condition: 1 }), ['rules[0].condition']],
    ['a condition out of range', () => rule({ type: 1, condition: 9 }), ['rules[0].condition']],
    ['a price rule value that is no number', () => rule({ type: 3, condition: 7, value: 'cheap' }), ['rules[0].value']],
    ['a weight rule value that is no number', () => rule({ type: 5, condition: 8, value: '1kg' }), ['rules[0].value']],
    ['an empty rule value', () => rule({ value: '' }), ['rules[0].value']],
    ['a rule without condition', () => ({ ...rule({}), rules: [{ type: 0, value: 'x' }] }), ['rules[0].condition']],
    ['an unknown image id', () => ({ ...valid, images: [999999] }), ['images[0]']],
    ['a seo_url that is not a slug', () => ({ ...valid, seo_url: 'Not a slug' }), ['seo_url']],
    [
      'wrong types',
      () => ({ ...valid, title: 1, is_draft: 'no', match_products: ['1'] }),
      ['title', 'is_draft', 'match_products[0]'],
    ],
    [
      'unknown and read-only fields',
      () => ({ ...valid, colour: 'red', id: 5, products: [] }),
      ['colour', 'id', 'products'],
    ],
  ];

  it.each(refusals)('refuses %s with 422 naming the field, creating nothing', async (_name, body, expectedFields) => {
    const before = await count();
    const res = await post(body());
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(fields(res)).toEqual(expect.arrayContaining(expectedFields));
    expect(await count()).toBe(before);
  });

  it('needs write_collections', async () => {
    const reader = await service.tokenWith(['read_collections', 'read_products']);
    const before = await count();
    expect((await post({ ...valid, seo_url: 'no-scope' }, reader)).status).toBe(403);
    expect(await count()).toBe(before);
  });
});

describe('PATCH /collections/{id}', () => {
  let id: number;
  beforeAll(async () => {
    id = (await post({ ...base('Editable'), type: 0, match_products: [products[0].id, products[1].id] })).body.id;
  });

  it('keeps omitted optional fields and replaces lists given, answering the Collection', async () => {
    const res = await patch(id, {
      title: 'Edited',
      seo_title: 'Edited',
      seo_url: 'edited',
      type: 0,
      description: 'New.',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      title: 'Edited',
      seo_url: 'edited',
      description: 'New.',
      match_products: [products[0].id, products[1].id],
    });
    expect(res.body.updated_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
    const reordered = await patch(id, {
      title: 'Edited',
      seo_title: 'Edited',
      seo_url: 'edited',
      type: 0,
      match_products: [products[2].id, products[0].id],
    });
    expect(reordered.body.match_products).toEqual([products[2].id, products[0].id]);
    expect((await read(id)).products).toEqual([products[2].id, products[0].id]);
  });

  it(
    'switches kinds: rule-based needs its rules and drops the products, ' +
      'manual needs its products and drops the rules',
    async () => {
      const toRules = { title: 'Edited', seo_title: 'Edited', seo_url: 'edited', type: 1 };
      const refused = await patch(id, toRules);
      expect(refused.status).toBe(422);
      expect(fields(refused)).toEqual(expect.arrayContaining(['rules', 'rules_match_condition']));
      const res = await patch(id, {
        ...toRules,
        rules_match_condition: 0,
        rules: [{ type: 4, condition: 0, value: 'winter' }],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ type: 1, match_products: [], rules_match_condition: 0 });
      expect((await read(id)).products).toEqual(expected([{ type: 4, condition: 0, value: 'winter' }], false));
      const back = await patch(id, { ...toRules, type: 0, match_products: [products[4].id] });
      expect(back.body).toMatchObject({
        type: 0,
        match_products: [products[4].id],
        rules: [],
        rules_match_condition: null,
      });
    },
  );

  it('takes back a collection as read, without its read-only fields', async () => {
    for (const c of [
      await read(id),
      (await service.get('/api/v1/collections?sort=id&size=250')).body.items.find((x: any) => x.type === 1),
    ]) {
      const { products: _members, ...shown } = c;
      const { id: cid, created_at: _created, updated_at: _updated, ...body } = shown;
      const res = await patch(cid, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...shown, updated_at: expect.any(Number) });
    }
  });

  it('refuses bad bodies with 422 and leaves the collection unchanged', async () => {
    const before = await read(id);
    for (const [body, field] of [
      [{ title: 'x', seo_title: 'x', seo_url: 'x' }, 'type'],
      [{ type: 0, seo_title: 'x', seo_url: 'x', match_products: [] }, 'title'],
      [{ title: 'x', seo_title: 'x', seo_url: 'x', type: 0, match_products: [999999] }, 'match_products[0]'],
      [
        {
          title: 'x',
          seo_title: 'x',
          seo_url: 'x',
          type: 1,
          rules_match_condition: 1,
          rules: [{ type: 6, condition: 5, value: 'x' }],
        },
        'rules[0].condition',
      ],
      [
        {
          title: 'x',
          seo_title: 'x',
          seo_url: 'x',
          type: 1,
          rules_match_condition: 1,
          rules: [{ type: 3, condition: 5, value: 'ten' }],
        },
        'rules[0].value',
      ],
      [{ title: 'x', seo_title: 'x', seo_url: 'x', type: 0, created_at: 5 }, 'created_at'],
    ] as const) {
      const res = await patch(id, body);
      expect(res.status).toBe(422);
      expect(fields(res)).toContain(field);
      expect(await read(id)).toEqual(before);
    }
  });

  it('refuses a seo_url another collection has with 409, changing nothing', async () => {
    const other = (await post({ ...base('Other'), type: 0, match_products: [] })).body;
    const before = await read(id);
    const res = await patch(id, {
      title: 'Changed',
      seo_title: 'Changed',
      seo_url: other.seo_url,
      type: 0,
      match_products: [],
    });
    expect(res.status).toBe(409);
    expect(await read(id)).toEqual(before);
  });

  it('answers 404 for a missing collection and 403 without write_collections', async () => {
    expect((await patch(999999, { ...base('Missing'), type: 0, match_products: [] })).status).toBe(404);
    expect((await service.get('/api/v1/collections/999999')).status).toBe(404);
    const before = await read(id);
    const reader = await service.tokenWith(['read_collections']);
    expect((await patch(id, { ...base('Nope'), type: 0, match_products: [] }, reader)).status).toBe(403);
    expect(await read(id)).toEqual(before);
  });
});

describe('GraphQL collection mutations', () => {
  it('creates, updates and deletes a collection; its products stay', async () => {
    const created = await service.graphql(
      'mutation ($input: CollectionInput!) { createCollection(input: $input) { id productIds } }',
      { input: { title: 'G', seoTitle: 'G', seoUrl: '', type: 0, manualProductIds: [products[1].id] } },
    );
    expect(created.body.errors).toBeUndefined();
    const { id, productIds } = created.body.data.createCollection;
    expect(productIds).toEqual([products[1].id]);
    const updated = await service.graphql(
      `mutation { updateCollection(id: ${id}, input: { title: "G2", seoTitle: "G2", seoUrl: "g2", ` +
        `type: 1, rulesMatchCondition: 0, rules: [{ type: 0, condition: 9, value: "x" }] }) { id } }`,
    );
    expect(updated.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'rules[0].condition', message: expect.any(String) }],
    });
    const deleted = await service.graphql(`mutation { deleteCollection(id: ${id}) }`);
    expect(deleted.body.data.deleteCollection).toBe(id);
    expect((await service.get(`/api/v1/collections/${id}`)).status).toBe(404);
    expect((await service.get(`/api/v1/products/${products[1].id}`)).status).toBe(200);
    expect((await service.graphql(`mutation { deleteCollection(id: ${id}) }`)).body.errors[0].extensions.code).toBe(
      'NOT_FOUND',
    );
  });
});
