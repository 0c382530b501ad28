// Text arrays (tags, option values, variant combinations) keep every value exactly: NULL, blanks,
// quotes, commas, braces, backslashes and newlines are data, not array syntax.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const tricky = [
  'NULL',
  'null',
  ' lead',
  'trail ',
  'a,b',
  'say "hi"',
  'back\\slash',
  'line\nbreak',
  '{braces}',
  'tab\there',
];

it('stores and reads back tags exactly, and reads keep working', async () => {
  const res = await service.send('PATCH', '/api/v1/products/40', { tags: tricky });
  expect(res.status).toBe(200);
  expect((await service.get('/api/v1/products/40?fields=tags')).body.tags).toEqual(tricky);
  expect((await service.get('/api/v1/products?size=250')).status).toBe(200);
  const [buyer] = await service.sql<{ customer_id: number }>(
    'select o.customer_id from orders o join line_item li on li.order_id = o.id where li.product_id = 40 limit 1',
  );
  if (buyer) {
    const customer = await service.get(`/api/v1/customers/${buyer.customer_id}`);
    expect(customer.status).toBe(200);
    expect(customer.body.tags).toEqual(expect.arrayContaining(tricky));
  }
});

it('keeps option values and variant combinations exactly, and tells "a" from "a "', async () => {
  const res = await service.send('PATCH', '/api/v1/products/39', {
    is_multi: true,
    options: [{ title: 'Size', values: ['null', 'M', 'M '] }],
    variants: [
      { variant: ['null'], price: 1 },
      { variant: ['M'], price: 2 },
      { variant: ['M '], price: 3 },
    ],
  });
  expect(res.status).toBe(200);
  const p = (await service.get('/api/v1/products/39?expand=options,variants')).body;
  expect(p.options[0].values).toEqual(['null', 'M', 'M ']);
  expect(p.variants.map((v: { variant: string[] }) => v.variant)).toEqual([['null'], ['M'], ['M ']]);
});
