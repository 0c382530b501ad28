// A counted text search in key order walks the key index once it has matched broadly
// (src/reads/search-walk.ts). Whichever form answers, the answer is the database's.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;

/** More matches than search-walk.ts's BROAD_MATCHES (1,024), all in this file's own database. */
const BROAD = 1100;

beforeAll(async () => {
  service = await startTestService();
  await service.sql(
    `insert into customer (email, first_name, last_name, created_at) ` +
      `select 'strider' || g || '@example.com', 'Aragorn', 'Striderson', now() from generate_series(1, ${BROAD}) g`,
  );
});
afterAll(() => service.stop());

type Answer = { ids: number[]; total: number; walked: boolean };

/** One search, its ids and total as a client sees them, and whether its statement walked. */
async function search(query: string, body: object): Promise<Answer> {
  service.statements.reset();
  const res = await service.send('POST', `/api/v1/customers/search?${query}`, body);
  expect(res.status).toBe(200);
  return {
    ids: res.body.items.map((c: { id: number }) => c.id),
    total: res.body._meta.totalCount,
    walked: service.statements.texts.some((text) => text.includes('with walk as')),
  };
}

async function expected(pattern: string, order: string, size: number, offset: number) {
  const rows = await service.sql<{ id: number }>(
    `select id from customer where last_name ilike ? order by id ${order} limit ${size} offset ${offset}`,
    [pattern],
  );
  const [{ n }] = await service.sql<{ n: number }>('select count(*)::int as n from customer where last_name ilike ?', [
    pattern,
  ]);
  return { ids: rows.map((r) => r.id), total: n };
}

it.each([
  ['sort=!id&size=20&page=1', 'desc', 20, 0],
  ['sort=id&size=15&page=3', 'asc', 15, 30],
])('answers a broad search (%s) the same before and after it walks', async (query, order, size, offset) => {
  const truth = await expected('%trider%', order, size, offset);
  const first = await search(query, { last_name: 'trider' });
  expect(first).toEqual({ ...truth, walked: false });
  const second = await search(query, { last_name: 'trider' });
  expect(second).toEqual({ ...truth, walked: true });
});

it('does not walk a narrow search, however often it is asked', async () => {
  for (let i = 0; i < 3; i++) {
    const answer = await search('size=20', { email: 'strider7@', last_name: 'Striderson' });
    expect(answer.walked).toBe(false);
    expect(answer.total).toBe(1);
  }
});

it('answers from the matches when the walk comes back short, and stops walking that search', async () => {
  const query = 'sort=!id&size=20&page=1';
  await search(query, { last_name: 'tridersen' }); // no match yet: nothing learnt
  await service.sql(`update customer set last_name = 'Stridersen' where email like 'strider%'`);
  await search(query, { last_name: 'tridersen' });
  expect((await search(query, { last_name: 'tridersen' })).walked).toBe(true);
  // The hint is now stale: a few match (ids divisible by 200), fewer than the page.
  await service.sql(`update customer set last_name = 'Striderson' where email like 'strider%' and id % 200 <> 0`);
  const truth = await expected('%tridersen%', 'desc', 20, 0);
  expect(truth.ids.length).toBeGreaterThan(0);
  expect(truth.ids.length).toBeLessThan(20);
  const short = await search(query, { last_name: 'tridersen' });
  expect(short).toEqual({ ...truth, walked: true });
  const after = await search(query, { last_name: 'tridersen' });
  expect(after).toEqual({ ...truth, walked: false });
});
