// A counted text search's statement is planned once per connection, whatever terms come
// (src/reads/page-statements.ts patternsHidden): its form is chosen when it runs, from the column's
// statistics (src/reads/search-walk.ts), so the planner has nothing to gain from seeing a term. With
// the pattern visible, every narrow term was planned anew on a store of real size, and planning the
// statement took as long as running it. Measured by PostgreSQL itself: the plans it made for the
// service's own statement text, prepared on a connection of this test's, narrow and broad terms in turn.
import pg from 'pg';
import { createDatabase, startTestService, type TestService } from './support/harness.js';

let service: TestService;
let databaseUrl: string;

/** Customers enough that a narrow term's own plan looks far cheaper than the generic one. */
const CUSTOMERS = 60_000;

beforeAll(async () => {
  databaseUrl = await createDatabase();
  service = await startTestService({ databaseUrl });
  await service.sql(
    `insert into customer (email, first_name, last_name, created_at) select 'person.' || g || '@example.com', ` +
      `'Pat', 'Person' || (g % 500), now() from generate_series(1, ${CUSTOMERS}) g`,
  );
  await service.sql('analyze customer');
}, 60_000);
afterAll(() => service.stop());

/** The service's statement for a counted search of `body`, as it sends it (values bound, `$n`). */
async function searchStatement(body: object): Promise<string> {
  service.statements.reset();
  expect((await service.send('POST', '/api/v1/customers/search', body)).status).toBe(200);
  const text = service.statements.texts.find((t) => t.includes('matches as materialized'));
  expect(text).toBeDefined();
  return text!.replace('/* prepared */ ', '');
}

it.each([
  ['an e-mail term, walked when broad', { email: 'person.1@' }, (term: string) => term],
  ['a last-name term', { last_name: 'son4' }, (term: string) => term],
])('plans %s once per connection, whatever terms come', async (_, body, pattern) => {
  const statement = await searchStatement(body);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const terms = ['%.12345@%', '%person.%', '%.777@%', '%son42%', '%.31337@%', '%.1@%', '%.59999@%', '%.2024@%'];
    const arrays = (statement.match(/\$(\d+)::text\[\]/g) ?? []).map((m) => Number(m.slice(1, m.indexOf(':'))));
    const count = new Set(statement.match(/\$\d+/g)).size;
    for (let round = 0; round < 2; round++) {
      for (const term of terms) {
        // Every value this statement binds is the pattern (the gate's as arrays, the filter's as text).
        const values = Array.from({ length: count }, (_, i) => (arrays.includes(i + 1) ? [pattern(term)] : term));
        await client.query({ name: 'search', text: statement, values });
      }
    }
    const [plans] = (
      await client.query("select generic_plans, custom_plans from pg_prepared_statements where name = 'search'")
    ).rows;
    // PostgreSQL plans the first five executions for their values, then keeps the generic plan for good.
    expect({ custom: Number(plans.custom_plans), generic: Number(plans.generic_plans) }).toEqual({
      custom: 5,
      generic: 2 * terms.length - 5,
    });
  } finally {
    await client.end();
  }
});
