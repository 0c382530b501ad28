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
  // One page statement per shape and form (walked or matched), alone or carrying the token check
  // (charging the bucket, or paid by the process's lease: src/auth/carried-token-check.ts), and the
  // token check with its rate-limit bookkeeping: a number bound by the shapes, not by the terms.
  expect(texts.size).toBeLessThanOrEqual(20);
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

describe('deep pages', () => {
  // A deep page's OFFSET (≥ 1000 rows) is bound (src/reads/page-statements.ts): page numbers are user
  // input with a long tail, and each written-in number would be one more prepared statement per
  // connection. Each of the three roads (unfiltered, filtered, counted text search) is checked for
  // one text over several page numbers and for the rows at each page's position.
  const SIZE = 10;
  const PAGES = [101, 102, 117, 130];

  beforeAll(async () => {
    await service.sql(`insert into customer (email, first_name, last_name, order_count, created_at)
      select 'texts' || g || '@example.com', 'Texts', 'Deepline' || (g % 5), g % 4, now()
      from generate_series(1, 1400) g`);
  });

  const roads: [string, (page: number) => Promise<{ status: number; ids: number[] }>, string][] = [
    [
      'an unfiltered list',
      async (page) => {
        const res = await service.get(
          `/api/v1/customers?sort=!statistics.order_count&size=${SIZE}&page=${page}&fields=id`,
        );
        return { status: res.status, ids: res.body.items?.map((c: { id: number }) => c.id) };
      },
      'select id from customer order by order_count desc, id desc',
    ],
    [
      'a filtered list without its count',
      async (page) => {
        const res = await service.graphql(
          'query ($page: Int!) { customers(filter: { lastName: ["eepline"] }, sort: [{ field: ID }], ' +
            'size: 10, page: $page) { items { id } } }',
          { page },
        );
        return { status: res.status, ids: res.body.data?.customers.items.map((c: { id: string }) => Number(c.id)) };
      },
      "select id from customer where last_name ilike '%eepline%' order by id",
    ],
    [
      'a counted text search',
      async (page) => {
        const res = await service.send('POST', `/api/v1/customers/search?sort=id&size=${SIZE}&page=${page}&fields=id`, {
          last_name: 'eepline',
        });
        return { status: res.status, ids: res.body.items?.map((c: { id: number }) => c.id) };
      },
      "select id from customer where last_name ilike '%eepline%' order by id",
    ],
  ];

  it.each(roads)(
    'sends one text for deep pages of %s whatever their number, each with its own rows',
    async (_, read, all) => {
      const answers = new Map<number, { status: number; ids: number[] }>();
      const texts = await textsDuring(async () => {
        for (const page of PAGES) answers.set(page, await read(page));
      });
      const sorted = (await service.sql<{ id: number }>(all)).map((row) => Number(row.id));
      for (const page of PAGES) {
        const offset = (page - 1) * SIZE;
        expect(answers.get(page)).toEqual({ status: 200, ids: sorted.slice(offset, offset + SIZE) });
        expect(answers.get(page)?.ids).toHaveLength(SIZE);
        expect([...texts].some((text) => text.includes(`offset ${offset}`))).toBe(false);
      }
      const pageTexts = [...texts].filter((text) => /\boffset \$\d+/.test(text));
      expect(pageTexts).toHaveLength(1);
    },
  );
});
