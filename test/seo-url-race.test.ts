// docs/decisions.md#domain-rules: a product's seo_url sent empty is derived from its title and made
// unique by a suffix, so it is never refused as taken; a URL given that another product holds is a
// 409. Race: a derivation and a URL given at once, for the same URL, many times over.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const ROUNDS = 30;

it('a URL derived while another write gives the same one is never refused: it takes the next suffix', async () => {
  const products = (await service.sql<{ id: number }>('select id from product order by id limit ?', [ROUNDS * 2])).map(
    (row) => row.id,
  );
  const outcomes: { derived: number; given: number; urls: string[] }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [deriving, giving] = [products[round * 2], products[round * 2 + 1]];
    const url = `race-url-${round}`;
    const [derived, given] = await Promise.all([
      service.send('PATCH', `/api/v1/products/${deriving}`, { title: `Race URL ${round}`, seo_url: '' }),
      service.send('PATCH', `/api/v1/products/${giving}`, { seo_url: url }),
    ]);
    outcomes.push({ derived: derived.status, given: given.status, urls: [derived.body.seo_url, given.body.seo_url] });
    if (given.status === 409) expect(given.body.errors.map((e: { field: string }) => e.field)).toEqual(['seo_url']);
  }
  expect(outcomes.filter((o) => o.derived !== 200)).toEqual([]);
  expect(outcomes.filter((o) => o.given !== 200 && o.given !== 409)).toEqual([]);
  const [{ repeated }] = await service.sql<{ repeated: number }>(
    'select count(*)::int - count(distinct seo_url)::int as repeated from product',
  );
  expect(repeated).toBe(0);
});
