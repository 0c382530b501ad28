// A counted text search in key order walks the key index when the searched column's statistics say
// the term is broad (src/reads/search-walk.ts): decided by PostgreSQL from `pg_stats` when the
// statement runs, so the first request of a process plans as its thousandth, and only ANALYZE changes
// the form. Whichever form answers, the answer is the database's.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
let metricsToken: string;

/** Most of this file's customers, once inserted: a term matching them is broad by any statistics. */
const BROAD = 1100;

beforeAll(async () => {
  service = await startTestService();
  await service.sql(
    `insert into customer (email, first_name, last_name, created_at) ` +
      `select 'strider' || g || '@example.com', 'Aragorn', 'Striderson', now() from generate_series(1, ${BROAD}) g`,
  );
  await service.sql('analyze customer');
  metricsToken = await service.tokenWith(['read_metrics']);
});
afterAll(() => service.stop());

type Answer = { ids: number[]; total: number; form: 'walk' | 'matches' | 'none' };

/** How often each form has answered, from `/metrics`. */
async function forms(): Promise<Record<string, number>> {
  const text = (await service.get('/metrics', metricsToken)).text as string;
  const count = (form: string) =>
    Number(new RegExp(`^db_text_search_forms_total\\{form="${form}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { walk: count('walk'), matches: count('matches') };
}

/** One search, its ids and total as a client sees them, and which form answered it. */
async function search(query: string, body: object): Promise<Answer> {
  const before = await forms();
  const res = await service.send('POST', `/api/v1/customers/search?${query}`, body);
  expect(res.status).toBe(200);
  const after = await forms();
  const form = after.walk > before.walk ? 'walk' : after.matches > before.matches ? 'matches' : 'none';
  return { ids: res.body.items.map((c: { id: number }) => c.id), total: res.body._meta.totalCount, form };
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
])('walks a broad search (%s) from its first request, with the database answer', async (query, order, size, offset) => {
  const truth = await expected('%trider%', order, size, offset);
  for (let i = 0; i < 2; i++) expect(await search(query, { last_name: 'trider' })).toEqual({ ...truth, form: 'walk' });
});

it('reads the matches of a narrow search, however often it is asked', async () => {
  for (let i = 0; i < 3; i++) {
    expect(await search('size=20', { last_name: 'Lovelace-Nobody' })).toMatchObject({ total: 0, form: 'matches' });
  }
});

it('answers from the matches when statistics older than the data make the walk come back short', async () => {
  const query = 'sort=!id&size=20&page=1';
  // Analysed while every Strider matched: the statistics say broad.
  await service.sql(`update customer set last_name = 'Stridersen' where email like 'strider%'`);
  await service.sql('analyze customer');
  expect((await search(query, { last_name: 'tridersen' })).form).toBe('walk');
  // Now only a few match (ids divisible by 200), fewer than the page; the statistics still say broad.
  await service.sql(`update customer set last_name = 'Striderson' where email like 'strider%' and id % 200 <> 0`);
  const truth = await expected('%tridersen%', 'desc', 20, 0);
  expect(truth.ids.length).toBeGreaterThan(0);
  expect(truth.ids.length).toBeLessThan(20);
  expect(await search(query, { last_name: 'tridersen' })).toEqual({ ...truth, form: 'matches' });
  // Analysed again: narrow, and the walk is not even tried (its one-time filter is false).
  await service.sql('analyze customer');
  expect(await search(query, { last_name: 'tridersen' })).toEqual({ ...truth, form: 'matches' });
});

it('does not walk a search of several columns: one form, whatever it matched before', async () => {
  const answer = await search('size=20', { email: 'strider7@', last_name: 'Striderson' });
  expect(answer).toMatchObject({ total: 1, form: 'none' });
});
