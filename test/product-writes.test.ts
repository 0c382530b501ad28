// PATCH /products/{id} and the GraphQL product mutations. Every refusal names its field in
// the body's REST names, and the product reads back exactly as before it.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
let images: number[];
let manual: number[];
let ruleBased: number;

beforeAll(async () => {
  service = await startTestService();
  images = [];
  for (const n of [1, 2, 3]) {
    const res = await service.graphql(
      'mutation ($url: String!) { createImage(url: $url, maxSize: 1200) { id path maxSize } }',
      {
        url: `https://img.example.com/test-${n}.png`,
      },
    );
    images.push(res.body.data.createImage.id);
  }
  manual = (await service.sql<{ id: number }>('select id from collection where type = 0 order by id')).map((r) => r.id);
  [{ id: ruleBased }] = await service.sql<{ id: number }>(
    'select id from collection where type = 1 order by id limit 1',
  );
});
afterAll(() => service.stop());

const patch = (id: number, body: unknown, token?: string) =>
  service.send('PATCH', `/api/v1/products/${id}`, body, token);
// The spec's relations (expand=all adds metafields too, on the product and its variants).
const read = async (id: number) =>
  (await service.get(`/api/v1/products/${id}?expand=textareas,images,options,variants`)).body;
const inList = (ids: number[]) => `(${ids.map(Number).join(', ') || 'null'})`;
const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field);

async function multiProduct(): Promise<number> {
  // A product with two options (Size × Color), so combinations have two values.
  const [row] = await service.sql<{ id: number }>(
    'select p.id from product p where p.is_multi and ' +
      '(select count(*) from product_option o where o.product_id = p.id) = 2 order by p.id limit 1',
  );
  return row.id;
}

async function singleProduct(offset = 0): Promise<number> {
  const [row] = await service.sql<{ id: number }>(
    'select id from product where not is_multi order by id limit 1 offset ?',
    [offset],
  );
  return row.id;
}

const variantsOf = (p: any) => p.variants.map((v: any) => ({ variant: v.variant, price: v.price }));
/** The product's options as a body sends them (a thumbnail's image by id). */
const optionsOf = (p: any) =>
  p.options.map((o: any) => ({
    ...o,
    thumbnails: o.thumbnails.map((t: any) => (t.image ? { value: t.value, image: t.image.id } : t)),
  }));

describe('PATCH /products/{id}: fields', () => {
  it('changes scalars and answers every scalar field with created_at and updated_at', async () => {
    const id = await singleProduct();
    const before = await read(id);
    const res = await patch(id, {
      title: 'Renamed product',
      type: 'Tools',
      vendor: null,
      shipping_weight: 2.25,
      auto_fulfilment: true,
      track_inventory: true,
      seo_meta: 'meta',
      seo_title: 'SEO title',
      is_template: true,
      is_draft: true,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      'id',
      'title',
      'is_multi',
      'type',
      'collections',
      'tags',
      'shipping_weight',
      'auto_fulfilment',
      'track_inventory',
      'vendor',
      'sku',
      'seo_meta',
      'seo_title',
      'seo_url',
      'is_template',
      'is_draft',
      'price',
      'compare_price',
      'created_at',
      'updated_at',
    ]);
    expect(res.body).toMatchObject({
      id,
      title: 'Renamed product',
      type: 'Tools',
      vendor: null,
      shipping_weight: 2.25,
      auto_fulfilment: true,
      track_inventory: true,
      seo_meta: 'meta',
      seo_title: 'SEO title',
      is_template: true,
      is_draft: true,
      created_at: before.created_at,
    });
    // A title change alone keeps the URL, so links stay valid.
    expect(res.body.seo_url).toBe(before.seo_url);
    expect(res.body.updated_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
    const { textareas, images: imgs, options, variants, ...scalars } = await read(id);
    expect(scalars).toEqual(res.body);
    expect({ textareas, images: imgs, options, variants }).toEqual({
      textareas: before.textareas,
      images: before.images,
      options: before.options,
      variants: before.variants,
    });
  });

  it('takes money as a number or a numeric string; a single variant follows price, compare_price and sku', async () => {
    const id = await singleProduct(1);
    const variantId = (await read(id)).variants[0].id;
    let res = await patch(id, { price: '19.9', compare_price: 25, sku: 'NEW-SKU' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ price: 19.9, compare_price: 25, sku: 'NEW-SKU' });
    let p = await read(id);
    expect(p.variants).toEqual([
      {
        id: variantId,
        variant: [],
        price: 19.9,
        compare_price: 25,
        sku: 'NEW-SKU',
        default: true,
        ignore: false,
        images: [],
      },
    ]);
    res = await patch(id, { compare_price: null, price: 0 });
    expect(res.body).toMatchObject({ price: 0, compare_price: null });
    // Given through its one variant, the price is the product's too.
    res = await patch(id, { variants: [{ variant: [], price: '7.05', sku: 'V-SKU' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ price: 7.05, sku: 'V-SKU' });
    p = await read(id);
    expect(p.variants).toHaveLength(1);
    expect(p.variants[0]).toMatchObject({ id: variantId, price: 7.05, sku: 'V-SKU', compare_price: null });
    const [row] = await service.sql<{ price: string }>('select price::text from product_variant where id = ?', [
      variantId,
    ]);
    expect(row.price).toBe('7.05');
  });

  it('replaces tags, textareas, images and manual collections, in the given order', async () => {
    const id = await singleProduct(2);
    const res = await patch(id, {
      tags: ['new', 'Sale'],
      textareas: [
        { name: 'Materials', text: 'Wool' },
        { name: 'Description', text: 'Warm.' },
      ],
      images: [images[1], images[0]],
      collections: [manual[2], manual[0]],
    });
    expect(res.status).toBe(200);
    expect(res.body.tags).toEqual(['new', 'Sale']);
    expect(res.body.collections).toEqual([manual[0], manual[2]].sort((a, b) => a - b));
    const p = await read(id);
    expect(p.textareas).toEqual([
      { name: 'Materials', text: 'Wool' },
      { name: 'Description', text: 'Warm.' },
    ]);
    expect(p.images.map((i: any) => i.id)).toEqual([images[1], images[0]]);
    expect(p.images[0]).toEqual({ id: images[1], path: 'https://img.example.com/test-2.png', max_size: 1200 });

    await patch(id, {
      textareas: [{ name: 'Description', text: 'Warmer.' }],
      images: [],
      collections: [manual[2]],
      tags: [],
    });
    const after = await read(id);
    expect(after.textareas).toEqual([{ name: 'Description', text: 'Warmer.' }]);
    expect(after.images).toEqual([]);
    expect(after.collections).toEqual([manual[2]]);
    expect(after.tags).toEqual([]);
    // The product went to the end of the manual collection it joined.
    const members = (await service.get(`/api/v1/collections/${manual[2]}?expand=products`)).body.products;
    expect(members[members.length - 1]).toBe(id);
  });

  it('derives seo_url from the title when sent empty, unique by a suffix', async () => {
    const [a, b] = [await singleProduct(3), await singleProduct(4)];
    const taken = (await read(a)).seo_url;
    const title = (await read(a)).title;
    const res = await patch(b, { title, seo_url: '' });
    expect(res.status).toBe(200);
    expect(res.body.seo_url).toBe(`${taken}-2`);
    // Its event gives the URL derived, not the empty one sent (a mirror would blank it).
    const [event] = await service.sql<{ data: { seo_url?: string } }>(
      "select data from event where type = 'product.updated' and subject_id = ? order by id desc limit 1",
      [b],
    );
    expect(event.data.seo_url).toBe(`${taken}-2`);
    const accented = await patch(b, { title: 'Crème Brûlée & Straße', seo_url: '' });
    expect(accented.body.seo_url).toBe('creme-brulee-and-strasse');
    const explicit = await patch(b, { seo_url: 'my-own-url' });
    expect(explicit.body.seo_url).toBe('my-own-url');
  });

  it('refuses a seo_url another product has with 409, changing nothing', async () => {
    const [a, b] = [await singleProduct(5), await singleProduct(6)];
    const before = await read(b);
    const res = await patch(b, { title: 'Would change', tags: ['x'], seo_url: (await read(a)).seo_url });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['seo_url']);
    expect(await read(b)).toEqual(before);
  });
});

describe('PATCH /products/{id}: options and variants', () => {
  it("a multi-variant product shows its default variant's price; made single, it keeps it", async () => {
    const [{ id }] = await service.sql<{ id: number }>(
      'select p.id from product p where p.is_multi and ' +
        '(select count(*) from product_option o where o.product_id = p.id) = 2 order by p.id limit 1 offset 2',
    );
    const before = await read(id);
    const variants = before.variants.map((v: any, i: number) => ({
      variant: v.variant,
      price: i === 0 ? 77.5 : v.price,
      default: i === 0,
    }));
    const repriced = await patch(id, { variants });
    expect(repriced.status).toBe(200);
    expect(repriced.body.price).toBe(77.5);
    // A product-level price left from before (a multi product made over GraphQL held 0.00) is not
    // what it sells for: made single-variant without a price, it keeps its default variant's.
    await service.sql("update product set price = '0.00' where id = ?", [id]);
    const single = await patch(id, { is_multi: false, options: [] });
    expect(single.status).toBe(200);
    expect(single.body.price).toBe(77.5);
    const after = await read(id);
    expect(after.variants.map((v: any) => v.price)).toEqual([77.5]);
  });

  it('keeps each variant and its meaning when the options come in another order, variants sent or not', async () => {
    const [{ id }] = await service.sql<{ id: number }>(
      'select p.id from product p where p.is_multi and ' +
        '(select count(*) from product_option o where o.product_id = p.id) = 2 order by p.id limit 1 offset 1',
    );
    const before = await read(id);
    const valuesById = (p: any) =>
      Object.fromEntries(p.variants.map((v: any) => [v.id, v.variant])) as Record<string, string[]>;
    const reversed = [...optionsOf(before)].reverse();
    const options = await patch(id, { options: reversed });
    expect(options.status).toBe(200);
    const after = await read(id);
    expect(after.options.map((o: any) => o.title)).toEqual(reversed.map((o: any) => o.title));
    const flipped = Object.fromEntries(
      Object.entries(valuesById(before)).map(([variant, values]) => [variant, [...values].reverse()]),
    );
    expect(valuesById(after)).toEqual(flipped);
    // Back again, the variants sent too in the options' new order: the same ids.
    const back = await patch(id, {
      options: optionsOf(before),
      variants: before.variants.map((v: any) => ({ variant: v.variant, price: v.price })),
    });
    expect(back.status).toBe(200);
    expect(valuesById(await read(id))).toEqual(valuesById(before));
  });

  // Options whose values overlap: reordered, two variants swap their values, and a kept one takes
  // the values of one the same write removes. Each met the unique combination row by row: a 409
  // naming seo_url.
  it('reorders options whose values overlap: variants swap values, or take a removed one’s', async () => {
    const [{ id }] = await service.sql<{ id: number }>(
      'select id from product where is_multi order by id desc limit 1',
    );
    const made = await patch(id, {
      options: [
        { title: 'Top', values: ['Red', 'Blue'] },
        { title: 'Bottom', values: ['Red', 'Blue'] },
      ],
      variants: [
        { variant: ['Red', 'Blue'], price: 10 },
        { variant: ['Blue', 'Red'], price: 20 },
      ],
    });
    expect(made.status).toBe(200);
    const before = await read(id);
    const swapped = [
      { title: 'Bottom', values: ['Red', 'Blue'] },
      { title: 'Top', values: ['Red', 'Blue'] },
    ];
    const res = await patch(id, { options: swapped });
    expect(res.status).toBe(200);
    const after = await read(id);
    const byId = (p: any) => Object.fromEntries(p.variants.map((v: any) => [v.id, [v.variant, v.price]]));
    expect(byId(after)).toEqual(
      Object.fromEntries(before.variants.map((v: any) => [v.id, [[...v.variant].reverse(), v.price]])),
    );
    // Back, one variant sent: the other is removed, and the kept one takes its values.
    const kept = after.variants.find((v: any) => v.price === 10);
    const back = await patch(id, {
      options: swapped.slice().reverse(),
      variants: [{ variant: ['Red', 'Blue'], price: 11 }],
    });
    expect(back.status).toBe(200);
    expect((await read(id)).variants.map((v: any) => [v.id, v.variant, v.price])).toEqual([
      [kept.id, ['Red', 'Blue'], 11],
    ]);
  });

  it('keeps the id of a variant whose combination stays, deletes removed ones, gives new ones new ids', async () => {
    const id = await multiProduct();
    const before = await read(id);
    const [size, color] = before.options;
    const kept = before.variants.filter((v: any) => v.variant[0] === size.values[0]);
    const removed = before.variants.filter((v: any) => v.variant[0] !== size.values[0]);
    const removedIds = inList(removed.map((v: any) => v.id));
    // The removed variants hold stock, which goes with them.
    await service.sql(
      `insert into inventory_level (warehouse_id, variant_id, quantity)
        select w.id, v.id, 7 from warehouse w cross join product_variant v
       where v.id in ${removedIds} on conflict do nothing`,
    );
    const res = await patch(id, {
      options: [
        { title: size.title, values: [size.values[0], 'XXL'] },
        {
          title: color.title,
          changes_look: true,
          values: color.values,
          thumbnails: [
            { value: color.values[0], color: '#00FF00' },
            { value: color.values[1], image: images[2] },
          ],
        },
      ],
      variants: [
        ...kept.map((v: any) => ({ variant: v.variant, price: v.price })),
        {
          variant: ['XXL', color.values[0]],
          price: '99.99',
          sku: 'XXL-1',
          default: true,
          images: [images[0], images[1]],
        },
      ],
    });
    expect(res.status).toBe(200);
    const after = await read(id);
    expect(after.variants.slice(0, kept.length).map((v: any) => v.id)).toEqual(kept.map((v: any) => v.id));
    const added = after.variants[kept.length];
    expect(before.variants.map((v: any) => v.id)).not.toContain(added.id);
    expect(added).toMatchObject({
      variant: ['XXL', color.values[0]],
      price: 99.99,
      sku: 'XXL-1',
      default: true,
      compare_price: null,
      ignore: false,
    });
    expect(added.images.map((i: any) => i.id)).toEqual([images[0], images[1]]);
    // Naming a default makes every other variant not the default; omitted fields of kept variants stay.
    expect(after.variants.filter((v: any) => v.default)).toEqual([added]);
    expect(after.variants[0].sku).toBe(kept[0].sku);
    expect(after.options[0].values).toEqual([size.values[0], 'XXL']);
    expect(after.options[1].thumbnails).toEqual([
      { value: color.values[0], color: '#00ff00' },
      { value: color.values[1], image: { id: images[2], path: 'https://img.example.com/test-3.png', max_size: 1200 } },
    ]);
    expect(removed.length).toBeGreaterThan(0);
    expect(await service.sql(`select id from product_variant where id in ${removedIds}`)).toEqual([]);
    expect(await service.sql(`select id from inventory_level where variant_id in ${removedIds}`)).toEqual([]);
  });

  it('leaves line items of a removed variant their snapshot', async () => {
    const [line] = await service.sql<{
      id: number;
      product_id: number;
      variant_id: number;
      price: string;
      sku: string;
    }>(
      `select li.id, li.product_id, li.variant_id, li.price::text, li.sku
        from line_item li join product p on p.id = li.product_id
       where p.is_multi and (select count(*) from product_option o where o.product_id = p.id) = 1
         order by li.id limit 1`,
    );
    const p = await read(line.product_id);
    const others = p.variants.filter((v: any) => v.id !== line.variant_id);
    const res = await patch(line.product_id, {
      variants: others.map((v: any) => ({ variant: v.variant, price: v.price })),
    });
    expect(res.status).toBe(200);
    const [after] = await service.sql<Record<string, unknown>>(
      'select variant_id, variant_ref, price::text, sku from line_item where id = ?',
      [line.id],
    );
    expect(after).toEqual({ variant_id: null, variant_ref: line.variant_id, price: line.price, sku: line.sku });
  });

  it('turns a single-variant product into a multi-variant one and back', async () => {
    const id = await singleProduct(7);
    const before = await read(id);
    const multi = await patch(id, {
      is_multi: true,
      options: [{ title: 'Size', values: ['S', 'M'] }],
      variants: [
        { variant: ['S'], price: 10 },
        { variant: ['M'], price: 12, default: true },
      ],
    });
    expect(multi.status).toBe(200);
    let p = await read(id);
    expect(p.is_multi).toBe(true);
    expect(p.variants.map((v: any) => [v.variant, v.price, v.default])).toEqual([
      [['S'], 10, false],
      [['M'], 12, true],
    ]);
    expect(p.variants.map((v: any) => v.id)).not.toContain(before.variants[0].id);

    const single = await patch(id, { is_multi: false, options: [], price: 15 });
    expect(single.status).toBe(200);
    p = await read(id);
    expect(p.options).toEqual([]);
    expect(p.variants).toEqual([
      {
        id: expect.any(Number),
        variant: [],
        price: 15,
        compare_price: p.compare_price,
        sku: p.sku,
        default: true,
        ignore: false,
        images: [],
      },
    ]);
  });

  it('asks for variants when new options no longer fit the existing combinations', async () => {
    const id = await multiProduct();
    const before = await read(id);
    const res = await patch(id, { options: [{ title: 'Material', values: ['Wool'] }] });
    expect(res.status).toBe(422);
    expect(fields(res)).toEqual(['variants']);
    expect(await read(id)).toEqual(before);
  });
});

describe('PATCH /products/{id}: refusals', () => {
  // Each body is refused with 422 naming the field (REST names), and the product reads back unchanged.
  const cases: [string, (p: any) => unknown, string[]][] = [
    [
      'an unknown option value',
      (p) => ({
        variants: p.variants.map((v: any, i: number) => ({
          variant: i === 2 ? [v.variant[0], 'Plaid'] : v.variant,
          price: v.price,
        })),
      }),
      ['variants[2].variant[1]'],
    ],
    [
      'a combination of the wrong length',
      (p) => ({ variants: [{ variant: [optionsOf(p)[0].values[0]], price: 1 }] }),
      ['variants[0].variant'],
    ],
    ['duplicate combinations', (p) => ({ variants: [variantsOf(p)[0], variantsOf(p)[0]] }), ['variants[1].variant']],
    [
      'two defaults',
      (p) => ({ variants: variantsOf(p).map((v: any, i: number) => ({ ...v, default: i < 2 })) }),
      ['variants[1].default'],
    ],
    ['no variants', () => ({ variants: [] }), ['variants']],
    ['is_multi false while keeping options', () => ({ is_multi: false }), ['is_multi']],
    [
      'options without values',
      (p) => ({ options: [{ title: optionsOf(p)[0].title, values: [] }, optionsOf(p)[1]] }),
      ['options[0].values'],
    ],
    [
      'repeated option titles',
      (p) => ({ options: [optionsOf(p)[0], { ...optionsOf(p)[0], thumbnails: [] }] }),
      ['options[1]'],
    ],
    [
      'a thumbnail with both color and image',
      (p) => ({
        options: [
          optionsOf(p)[0],
          {
            ...optionsOf(p)[1],
            thumbnails: [
              { value: optionsOf(p)[1].values[0], color: '#fff' },
              { value: optionsOf(p)[1].values[1], color: '#000000', image: images[0] },
            ],
          },
        ],
      }),
      ['options[1].thumbnails[1].color'],
    ],
    [
      'a thumbnail with neither color nor image',
      (p) => ({
        options: [{ ...optionsOf(p)[0], thumbnails: [{ value: optionsOf(p)[0].values[0] }] }, optionsOf(p)[1]],
      }),
      ['options[0].thumbnails[0]'],
    ],
    [
      'a thumbnail colour that is not HEX',
      (p) => ({
        options: [
          { ...optionsOf(p)[0], thumbnails: [{ value: optionsOf(p)[0].values[0], color: 'red' }] },
          optionsOf(p)[1],
        ],
      }),
      ['options[0].thumbnails[0].color'],
    ],
    [
      'a thumbnail of a value the option lacks',
      (p) => ({
        options: [{ ...optionsOf(p)[0], thumbnails: [{ value: 'Nope', color: '#123456' }] }, optionsOf(p)[1]],
      }),
      ['options[0].thumbnails[0].value'],
    ],
    [
      'a thumbnail image that does not exist',
      (p) => ({
        options: [
          { ...optionsOf(p)[0], thumbnails: [{ value: optionsOf(p)[0].values[0], image: 999999 }] },
          optionsOf(p)[1],
        ],
      }),
      ['options[0].thumbnails[0].image'],
    ],
    ['an unknown image id', () => ({ images: [999999] }), ['images[0]']],
    ['a repeated image id', () => ({ images: [images[0], images[0]] }), ['images[1]']],
    [
      'an unknown variant image id',
      (p) => ({ variants: [{ ...variantsOf(p)[0], images: [999999] }] }),
      ['variants[0].images[0]'],
    ],
    ['an unknown collection id', () => ({ collections: [manual[0], 999999] }), ['collections[1]']],
    ['a rule-based collection', () => ({ collections: [ruleBased] }), ['collections[0]']],
    [
      'a textarea name that is no preset',
      () => ({ textareas: [{ name: 'Secret notes', text: 'x' }] }),
      ['textareas[0].name'],
    ],
    ['a textarea without text', () => ({ textareas: [{ name: 'Description' }] }), ['textareas[0].text']],
    ['an empty title', () => ({ title: '  ' }), ['title']],
    ['an empty tag', () => ({ tags: ['ok', ''] }), ['tags[1]']],
    ['a negative weight', () => ({ shipping_weight: -1 }), ['shipping_weight']],
    ['a seo_url that is not a slug', () => ({ seo_url: 'Not A Slug!' }), ['seo_url']],
    ['a price with three decimals', () => ({ price: 1.234 }), ['price']],
    ['a negative price', () => ({ price: -1 }), ['price']],
    ['a price over numeric(12,2)', () => ({ price: '12345678901' }), ['price']],
    ['a price that is not numeric', () => ({ price: 'cheap' }), ['price']],
    ['a price with spaces around it', () => ({ price: ' 12.5 ' }), ['price']],
    ['an id beyond 32 bits', () => ({ images: [2 ** 31], collections: [-(2 ** 40)] }), ['images[0]', 'collections[0]']],
    [
      'a variant price with three decimals',
      (p) => ({ variants: [{ ...variantsOf(p)[0], price: '0.001' }] }),
      ['variants[0].price'],
    ],
    ['a variant without price', (p) => ({ variants: [{ variant: p.variants[0].variant }] }), ['variants[0].price']],
    [
      'wrong types',
      () => ({ title: 5, is_draft: 'yes', tags: [1], collections: 'all', shipping_weight: '2' }),
      ['title', 'is_draft', 'tags[0]', 'collections', 'shipping_weight'],
    ],
    ['an unknown field', () => ({ colour: 'red' }), ['colour']],
    ['an unknown nested field', (p) => ({ variants: [{ ...variantsOf(p)[0], weight: 2 }] }), ['variants[0].weight']],
    [
      'read-only fields',
      (p) => ({ id: 1, created_at: 0, variants: [{ ...variantsOf(p)[0], id: p.variants[0].id }] }),
      ['id', 'created_at', 'variants[0].id'],
    ],
  ];

  it.each(cases)('refuses %s with 422 naming the field, changing nothing', async (_name, body, expected) => {
    const id = await multiProduct();
    const before = await read(id);
    const res = await patch(id, body(before));
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/validation-failed', status: 422 });
    expect(fields(res)).toEqual(expect.arrayContaining(expected));
    expect(await read(id)).toEqual(before);
  });

  it('says a repeated id repeats an entry in the body’s own words, no GraphQL name', async () => {
    const id = await multiProduct();
    const res = await patch(id, { collections: [manual[0], manual[0]], images: [images[0], images[0]] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'collections[1]', message: 'repeats the entry at [0]' },
        { field: 'images[1]', message: 'repeats the entry at [0]' },
      ]),
    );
    expect(res.body.detail).not.toMatch(/collectionIds|imageIds/);
  });

  it('names read-only and unknown fields as such', async () => {
    const id = await multiProduct();
    const p = await read(id);
    const res = await patch(id, { updated_at: 1, colour: 'red', variants: [{ ...variantsOf(p)[0], id: 5 }] });
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'updated_at', message: 'is read-only' },
        { field: 'colour', message: 'is not a field of this request' },
        { field: 'variants[0].id', message: 'is read-only' },
      ]),
    );
  });

  it('refuses is_multi without options on a single-variant product', async () => {
    const id = await singleProduct(8);
    const before = await read(id);
    const res = await patch(id, { is_multi: true });
    expect(res.status).toBe(422);
    expect(fields(res)).toEqual(['options']);
    expect(await read(id)).toEqual(before);
  });

  it('refuses two different prices for a single-variant product', async () => {
    const id = await singleProduct(8);
    const before = await read(id);
    const res = await patch(id, { price: 5, variants: [{ variant: [], price: 6 }] });
    expect(res.status).toBe(422);
    expect(fields(res)).toEqual(['variants[0].price']);
    expect(await read(id)).toEqual(before);
  });

  it('rolls back everything when a late check fails', async () => {
    const id = await multiProduct();
    const before = await read(id);
    // Valid tags, images and collections, but an option value no variant may use: nothing is written.
    const res = await patch(id, {
      tags: ['changed'],
      images: [images[0]],
      collections: [manual[1]],
      title: 'Changed',
      variants: [{ variant: ['x', 'y'], price: 1 }],
    });
    expect(res.status).toBe(422);
    expect(await read(id)).toEqual(before);
  });

  it('answers 404 for a missing product, 403 without write_products, 401 without a token', async () => {
    expect((await patch(999999, { title: 'x' })).status).toBe(404);
    const id = await singleProduct();
    const before = await read(id);
    const reader = await service.tokenWith(['read_products']);
    expect((await patch(id, { title: 'x' }, reader)).status).toBe(403);
    expect((await service.send('PATCH', `/api/v1/products/${id}`, { title: 'x' }, null)).status).toBe(401);
    expect(await read(id)).toEqual(before);
  });
});

describe('GraphQL product mutations', () => {
  const create = (input: unknown) =>
    service.graphql(
      'mutation ($input: ProductCreate!) { createProduct(input: $input) { id title isMulti seoUrl price ' +
        'variants { id variant price isDefault: default } } }',
      { input },
    );

  it('creates a single-variant product with its one variant and a derived seo_url', async () => {
    const res = await create({ title: 'Brand New Thing', price: '12.00' });
    expect(res.body.errors).toBeUndefined();
    const p = res.body.data.createProduct;
    expect(p).toMatchObject({ title: 'Brand New Thing', isMulti: false, seoUrl: 'brand-new-thing', price: '12.00' });
    expect(p.variants).toEqual([{ id: expect.any(Number), variant: [], price: '12.00', isDefault: true }]);
    const again = await create({ title: 'Brand new thing' });
    expect(again.body.data.createProduct.seoUrl).toBe('brand-new-thing-2');
    expect(again.body.data.createProduct.price).toBe('0.00');
  });

  it('answers a write that ran with 200 when its answer asks a field the token may not read', async () => {
    const writer = await service.tokenWith(['write_products']);
    const res = await service.graphql(
      'mutation { createProduct(input: { title: "Made, then asked too much" }) { id collections { id } } }',
      undefined,
      writer,
    );
    // The product exists; the answer reports the field refused, not a refused request to send again.
    expect(res.status).toBe(200);
    expect(res.body.errors[0]).toMatchObject({
      path: ['createProduct', 'collections'],
      extensions: { code: 'FORBIDDEN' },
    });
    const [made] = await service.sql<{ n: number }>(
      "select count(*)::int as n from product where title = 'Made, then asked too much'",
    );
    expect(made.n).toBe(1);
  });

  it('creates a multi-variant product and refuses one without options or variants', async () => {
    const res = await create({
      title: 'Multi',
      isMulti: true,
      options: [{ title: 'Size', values: ['S', 'M'] }],
      variants: [
        { variant: ['S'], price: 1 },
        { variant: ['M'], price: '2.5', default: true },
      ],
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createProduct.variants.map((v: any) => v.variant)).toEqual([['S'], ['M']]);
    const noOptions = await create({ title: 'Broken', isMulti: true });
    expect(noOptions.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'options', message: expect.any(String) }],
    });
    const noVariants = await create({ title: 'Broken', isMulti: true, options: [{ title: 'Size', values: ['S'] }] });
    expect(noVariants.body.errors[0].extensions.fields).toEqual([{ field: 'variants', message: expect.any(String) }]);
    expect(await service.sql("select id from product where title = 'Broken'")).toEqual([]);
  });

  it('updates through GraphQL with the same rules and names fields in GraphQL terms', async () => {
    const id = await multiProduct();
    const res = await service.graphql(
      'mutation ($id: Int!, $input: ProductPatch!) { updateProduct(id: $id, input: $input) { id } }',
      {
        id,
        input: { comparePrice: '-1', variants: [{ variant: ['a', 'b'], price: '1', comparePrice: '-2' }] },
      },
    );
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].extensions.fields.map((f: any) => f.field)).toEqual(
      expect.arrayContaining(['comparePrice', 'variants[0].comparePrice', 'variants[0].variant[0]']),
    );
  });

  it('deletes a product; its orders keep their line items', async () => {
    const [line] = await service.sql<{ id: number; product_id: number; title: string }>(
      'select id, product_id, title from line_item order by id desc limit 1',
    );
    const res = await service.graphql(`mutation { deleteProduct(id: ${line.product_id}) }`);
    expect(res.body.data.deleteProduct).toBe(line.product_id);
    expect((await service.get(`/api/v1/products/${line.product_id}`)).status).toBe(404);
    const [after] = await service.sql<Record<string, unknown>>(
      'select product_id, product_ref, title from line_item where id = ?',
      [line.id],
    );
    expect(after).toEqual({ product_id: null, product_ref: line.product_id, title: line.title });
    expect(
      (await service.graphql(`mutation { deleteProduct(id: ${line.product_id}) }`)).body.errors[0].extensions.code,
    ).toBe('NOT_FOUND');
  });

  it('registers images by http(s) URL only', async () => {
    const ok = await service.graphql(
      'mutation { createImage(url: "http://cdn.example.com/a.jpg", maxSize: 800) { id path maxSize } }',
    );
    expect(ok.body.data.createImage).toEqual({
      id: expect.any(Number),
      path: 'http://cdn.example.com/a.jpg',
      maxSize: 800,
    });
    for (const url of ['ftp://cdn.example.com/a.jpg', 'javascript:alert(1)', 'not a url', '/relative.png']) {
      const res = await service.graphql('mutation ($url: String!) { createImage(url: $url, maxSize: 800) { id } }', {
        url,
      });
      expect(res.body.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: [{ field: 'url', message: expect.any(String) }],
      });
    }
    const size = await service.graphql(
      'mutation { createImage(url: "https://a.example.com/x.png", maxSize: 0) { id } }',
    );
    expect(size.body.errors[0].extensions.fields).toEqual([{ field: 'maxSize', message: expect.any(String) }]);
    const reader = await service.tokenWith(['read_products']);
    const forbidden = await service.graphql(
      'mutation { createImage(url: "https://a.example.com/x.png", maxSize: 10) { id } }',
      {},
      reader,
    );
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
