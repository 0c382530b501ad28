// Filter values are bound parameters: the statement texts a service sends are the finite set of
// query shapes, never one per search term (each distinct text is a prepared statement per connection).
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

/** Distinct texts of the statements sent while `run` ran. */
async function textsDuring(run: () => Promise<void>): Promise<Set<string>> {
  service.statements.reset();
  await run();
  return new Set(service.statements.texts);
}

const SEARCHES = 5000;
const CONCURRENCY = 8;

it(`answers ${SEARCHES} distinct customer searches with a bounded set of statement texts`, async () => {
  const [{ email }] = await service.sql<{ email: string }>('select email from customer order by id limit 1');
  const known = email.slice(0, 4);
  const bodies = Array.from({ length: SEARCHES }, (_, i) => {
    // Four shapes (one text field, two fields, a list, an address block), each with a term of its own.
    const term = `${known}${i.toString(36)}`;
    switch (i % 4) {
      case 0:
        return { email: term };
      case 1:
        return { first_name: term, last_name: `x${i}` };
      case 2:
        return { last_name: [term, `y${i}`] };
      default:
        return { address: { shipping: { city: term } } };
    }
  });
  let next = 0;
  const statuses = new Map<number, number>();
  const texts = await textsDuring(async () => {
    const worker = async () => {
      for (let i = next++; i < SEARCHES; i = next++) {
        const res = await service.send('POST', '/api/v1/customers/search?size=5', bodies[i]);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  });
  expect(Object.fromEntries(statuses)).toEqual({ 200: SEARCHES });
  // One page statement per shape, plus the token check and rate-limit bookkeeping.
  expect(texts.size).toBeLessThanOrEqual(12);
  const all = [...texts].join('\n');
  expect(all).not.toContain(`${known}1`);
  expect(all).not.toContain('x4999');
}, 240_000);

it('sends the same text for pages of one search whatever the term, and a new one per page size', async () => {
  const sizes = await textsDuring(async () => {
    for (const term of ['ab', 'cd', 'ef']) {
      expect((await service.send('POST', '/api/v1/customers/search?size=5', { email: term })).status).toBe(200);
    }
  });
  const page = [...sizes].filter((text) => text.includes('limit 5 offset 0'));
  expect(page).toHaveLength(1);
  expect(page[0]).not.toMatch(/'%(ab|cd|ef)%'/);
});

it('answers each search of a shape it has seen with that search own values, as the database does', async () => {
  // One shape (last name and e-mail), built once (src/reads/filter-statements.ts), then bound anew.
  const rows = await service.sql<{ last_name: string; email: string }>(
    'select last_name, email from customer order by id desc limit 12',
  );
  for (const [k, { last_name, email }] of rows.entries()) {
    const name = last_name.slice(k % 3, (k % 3) + 3);
    const mail = email.slice(1, 5);
    const res = await service.send('POST', '/api/v1/customers/search?size=250&sort=id&fields=id', {
      last_name: name,
      email: mail,
    });
    expect(res.status).toBe(200);
    const expected = await service.sql<{ id: number }>(
      'select id from customer where last_name ilike ? and email ilike ? order by id limit 250',
      [`%${name}%`, `%${mail}%`],
    );
    expect(res.body.items.map((item: { id: number }) => item.id)).toEqual(expected.map((row) => row.id));
    expect(res.body._meta.totalCount).toBeGreaterThanOrEqual(expected.length);
  }
});
