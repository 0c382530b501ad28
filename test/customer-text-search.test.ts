// Case-insensitive customer searches run as LIKE on stored lower-case copies where the pattern is
// ASCII (src/domain/text-fold.ts). Whichever form answers, the rows are exactly ILIKE's, on names
// whose lowering is not simple.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;

const NAMES = [
  'Lovelace',
  'LOVELACE',
  '\u212Aelvin', // KELVIN SIGN: lower() makes it an ASCII k
  'İnce', // capital I with dot: lower() makes it an ASCII i (libc) or i + combining dot (ICU)
  'Işık',
  'Straße',
  'STRASSE',
  'ÖVERMARK',
  'Övermark',
  'ΟΔΥΣΣΕΥΣ',
  'Σοφός',
  '50%_off',
  'back\\slash',
];

beforeAll(async () => {
  service = await startTestService();
  for (const [i, name] of NAMES.entries()) {
    await service.sql(`insert into customer (email, first_name, last_name, created_at) values (?, ?, ?, now())`, [
      `${name}.${i}@Example.COM`,
      name,
      name,
    ]);
  }
});
afterAll(() => service.stop());

/** The ids ILIKE finds for `value` anywhere in `column`, with LIKE's wildcards in it escaped. */
async function ilike(column: string, value: string): Promise<number[]> {
  const pattern = `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await service.sql<{ id: number }>(`select id from customer where ${column} ilike ? order by id`, [
    pattern,
  ]);
  return rows.map((r) => r.id);
}

async function search(body: object): Promise<{ ids: number[]; texts: string[] }> {
  service.statements.reset();
  const res = await service.send('POST', '/api/v1/customers/search?sort=id&size=100', body);
  expect(res.status).toBe(200);
  expect(res.body._meta.totalCount).toBe(res.body.items.length);
  return { ids: res.body.items.map((c: { id: number }) => c.id), texts: service.statements.texts };
}

const ASCII = ['k', 'K', 'i', 'I', 'ss', 'SS', 'ove', 'OVE', 'sigma', '0%_', '%', '_', 'k\\s', 'E.0@EXAMPLE'];
const OTHER = ['Ö', 'ö', 'ß', 'σ', 'Σ', 'ς', 'İ', 'ı', '\u212A', 'ık'];

it.each(ASCII)('finds exactly what ILIKE finds for the ASCII term %j, on the lower-case copy', async (term) => {
  for (const column of ['last_name', 'first_name', 'email']) {
    const { ids, texts } = await search({ [column]: term });
    expect({ column, ids }).toEqual({ column, ids: await ilike(column, term) });
    expect(texts.some((text) => text.includes(`${column}_folded`))).toBe(true);
  }
});

it.each(OTHER)('finds exactly what ILIKE finds for the term %j, on the original column', async (term) => {
  const { ids, texts } = await search({ last_name: term });
  expect(ids).toEqual(await ilike('last_name', term));
  expect(texts.some((text) => text.includes('last_name_folded'))).toBe(false);
});

it('finds a customer by a term in any case, as GraphQL and REST agree', async () => {
  const { ids } = await search({ last_name: 'LoVeLaCe' });
  expect(ids).toEqual(await ilike('last_name', 'lovelace'));
  expect(ids.length).toBeGreaterThanOrEqual(2);
  const res = await service.graphql(`{
    customers(filter: { lastName: ["lOVElace"] }, sort: [{ field: ID, direction: ASC }]) { totalCount items { id } }
  }`);
  expect(res.body.data.customers).toEqual({ totalCount: ids.length, items: ids.map((id) => ({ id })) });
});
