// A process takes a few requests of a large bucket ahead (src/auth/rate-limit.ts, leases) and
// spends them without a charge statement; near empty every request is charged to the bucket, one at
// a time, and the token row is read on every request all the same.
import { hashSecret } from '../src/auth/api-tokens.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
// A lease is a hundredth of the bucket, at most 32 requests: 32 here. The refill is too slow to
// add a whole request while a test runs.
const BURST = 3200;
beforeAll(async () => {
  service = await startTestService({ rateLimit: { burst: BURST, rps: 0.001 } });
});
afterAll(() => service.stop());

const READ = '{ orders(size: 1) { items { id } } }';
const charges = () => service.statements.texts.filter((text) => text.includes('rate_limit_bucket')).length;
const bucketOf = async (secret: string) => {
  const [row] = await service.sql<{ tokens: number; leased: number }>(
    `select b.tokens, b.leased from rate_limit_bucket b join api_token t on t.id = b.token_id where t.secret_hash = ?`,
    [hashSecret(secret)],
  );
  return { tokens: Number(row.tokens), leased: Number(row.leased) };
};

it('charges the bucket once per lease while it is full, and counts every request in RateLimit-Remaining', async () => {
  const secret = await service.tokenWith(['read_orders']);
  service.statements.reset();
  const remaining: number[] = [];
  for (let i = 0; i < 40; i++) {
    const res = i % 2 ? await service.get('/api/v1/orders?size=1', secret) : await service.graphql(READ, {}, secret);
    expect(res.status).toBe(200);
    remaining.push(Number(res.headers.get('ratelimit-remaining')));
  }
  // The first request took 32 ahead, the 34th the next 32.
  expect(charges()).toBe(2);
  expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => BURST - 1 - i));
  // The bucket holds what this process has not yet been given: 40 spent and 26 leased unspent.
  const bucket = await bucketOf(secret);
  expect(Math.floor(bucket.tokens)).toBe(BURST - 40 - 26);
  expect(bucket.leased).toBe(32);
});

it('charges every request to the bucket near empty, and refuses the first one it cannot cover', async () => {
  const secret = await service.tokenWith(['read_orders']);
  expect((await service.graphql(READ, {}, secret)).status).toBe(200);
  // Another process spent the bucket down to 40; this process's lease runs out after 1 s.
  await service.sql(
    `update rate_limit_bucket set tokens = 40, refilled_at = now()
      where token_id = (select id from api_token where secret_hash = ?)`,
    [hashSecret(secret)],
  );
  await new Promise((resolve) => setTimeout(resolve, 1100));
  service.statements.reset();
  const statuses: number[] = [];
  for (let i = 0; i < 41; i++) statuses.push((await service.graphql(READ, {}, secret)).status);
  expect(statuses).toEqual([...Array(40).fill(200), 429]);
  expect(charges()).toBe(41);
  expect((await bucketOf(secret)).tokens).toBeLessThan(1);
});

it('refuses a revoked token at once, whatever its lease holds', async () => {
  const secret = await service.tokenWith(['read_orders']);
  expect((await service.graphql(READ, {}, secret)).status).toBe(200);
  await service.sql(`update api_token set revoked_at = now() where secret_hash = ?`, [hashSecret(secret)]);
  const refused = await service.graphql(READ, {}, secret);
  expect(refused.status).toBe(401);
  expect((await service.get('/api/v1/orders?size=1', secret)).status).toBe(401);
});
