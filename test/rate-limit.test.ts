// Rate limits (docs/decisions.md#rate-limits): one bucket per token, shared by every server
// process. Two processes of the built service share one database with a bucket of 10 refilled at 1
// request per second.
import { ensureFirstToken, hashSecret } from '../src/auth/api-tokens.js';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'rate-limit-test-admin-token-0123456789';
const BURST = 10;
const RPS = 1;
let service: TestService; // limits off: creates tokens in the shared database
let servers: ServerProcess[] = [];

beforeAll(async () => {
  const url = await createDatabase();
  service = await startTestService({ databaseUrl: url });
  const env = { RATE_LIMIT_BURST: String(BURST), RATE_LIMIT_RPS: String(RPS) };
  servers = await Promise.all([startServerProcess(url, ADMIN, env), startServerProcess(url, ADMIN, env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await service.stop();
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  contentType: string | null;
}

/** Request `i` goes to process `i % 2`. */
async function call(
  i: number,
  token: string | null,
  path = '/api/v1/products?size=1&fields=id',
  init: RequestInit = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${servers[i % 2].url}${path}`, { ...init, headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? JSON.parse(text) : undefined,
    contentType: res.headers.get('content-type'),
  };
}

const limitHeaders = (a: Answer) => ({
  limit: a.headers.get('ratelimit-limit'),
  remaining: a.headers.get('ratelimit-remaining'),
  reset: a.headers.get('ratelimit-reset'),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it(
  'lets exactly a bucket of concurrent requests through across both processes, ' +
    'then answers 429 problem+json with Retry-After',
  async () => {
    const token = await service.tokenWith(['read_products']);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => call(i, token)));
    const elapsed = (Date.now() - started) / 1000;
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    // Exactly the bucket, plus what refilled while the burst was in flight (nothing when it takes < 1 s).
    expect(ok.length).toBeGreaterThanOrEqual(BURST);
    expect(ok.length).toBeLessThanOrEqual(BURST + Math.floor(elapsed * RPS));
    expect(ok.length + refused.length).toBe(24);
    // A bucket per process would have let 2 × BURST through; both processes refused some.
    expect(
      answers.some((a, i) => a.status === 429 && i % 2 === 0) &&
        answers.some((a, i) => a.status === 429 && i % 2 === 1),
    ).toBe(true);
    for (const a of refused) {
      expect(a.contentType).toMatch(/^application\/problem\+json/);
      expect(a.body).toEqual({
        type: '/problems/rate-limited',
        title: 'Too Many Requests',
        status: 429,
        detail: expect.stringMatching(/^Rate limit exceeded/),
      });
      expect(a.headers.get('retry-after')).toBe('1'); // < 1 token left, 1 per second
      expect(limitHeaders(a)).toEqual({ limit: String(BURST), remaining: '0', reset: String(BURST / RPS) });
    }
    for (const a of ok) expect(a.headers.get('ratelimit-limit')).toBe(String(BURST));
    // The bucket was spent in order: every remaining count from BURST - 1 down was handed out. What
    // refilled while the burst was in flight (elapsed × RPS, fractions too) can hand a low count out
    // twice and keep the bottom ones from being reached, on a loaded machine.
    const handedOut = new Set(ok.map((a) => Number(a.headers.get('ratelimit-remaining'))));
    for (let left = Math.ceil(elapsed * RPS); left < BURST; left++)
      expect({ left, handedOut: handedOut.has(left) }).toEqual({ left, handedOut: true });
  },
);

it(
  'shows the bucket draining in the headers of REST and GraphQL answers alike; ' +
    'requests without a valid token are not counted',
  async () => {
    const token = await service.tokenWith(['read_products']);
    const seen: { limit: string | null; remaining: string | null; reset: string | null }[] = [];
    for (let i = 0; i < 6; i++) {
      const answer =
        i === 3
          ? await call(i, token, '/graphql', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ query: '{ product(id: 1) { id } }' }),
            })
          : await call(i, token);
      expect(answer.status).toBe(200);
      seen.push(limitHeaders(answer));
      // Unauthenticated, unknown and malformed tokens, on both processes, cost nothing and carry no headers.
      for (const [j, bad] of [null, 'sk_not-a-real-token', 'Basic abc'].entries()) {
        const refused =
          bad === 'Basic abc'
            ? await call(i + j, null, '/api/v1/products', { headers: { authorization: bad } })
            : await call(i + j, bad);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('ratelimit-remaining')).toBeNull();
      }
      const anonymousGraphQL = await call(i, null, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ product(id: 1) { id } }"}',
      });
      expect(anonymousGraphQL.status).toBe(401);
      expect(anonymousGraphQL.headers.get('ratelimit-remaining')).toBeNull();
    }
    expect(seen).toEqual(
      Array.from({ length: 6 }, (_, i) => ({
        limit: String(BURST),
        remaining: String(BURST - 1 - i),
        reset: String(i + 1),
      })),
    );
  },
);

// A document refused by its limits looks its token up (a 401 first for one not valid): each such
// lookup is a request charged, as the socket charges it, so refusals cannot be sent without limit.
it('charges a /graphql document refused by its limits one request', async () => {
  const token = await service.tokenWith(['read_products']);
  const deep = JSON.stringify({ query: `${'{ a '.repeat(70)}${'}'.repeat(70)}` });
  const headers = { 'content-type': 'application/json' };
  for (let i = 0; i < BURST; i++) {
    expect((await call(i, token, '/graphql', { method: 'POST', headers, body: deep })).status).toBe(400);
  }
  expect((await call(0, token)).status).toBe(429);
  const refused = await call(1, token, '/graphql', { method: 'POST', headers, body: deep });
  expect(refused.status).toBe(429);
  expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  expect(refused.headers.get('retry-after')).toBeTruthy();
});

it('keeps one bucket per token: an exhausted token does not slow another', async () => {
  const [a, b] = await Promise.all([service.tokenWith(['read_products']), service.tokenWith(['read_products'])]);
  await Promise.all(Array.from({ length: BURST + 2 }, (_, i) => call(i, a)));
  expect((await call(0, a)).status).toBe(429);
  const other = await call(1, b);
  expect(other.status).toBe(200);
  expect(other.headers.get('ratelimit-remaining')).toBe(String(BURST - 1));
});

it('refills at RATE_LIMIT_RPS: after Retry-After seconds the token may call again, ' +
  'and refused calls spent nothing', async () => {
  const token = await service.tokenWith(['read_products']);
  await Promise.all(Array.from({ length: BURST }, (_, i) => call(i, token)));
  const refused = await call(0, token);
  expect(refused.status).toBe(429);
  // Hammering while empty does not push the refill back: refusals spend nothing.
  for (let i = 0; i < 5; i++) expect((await call(i, token)).status).toBe(429);
  await sleep(Number(refused.headers.get('retry-after')) * 1000 + 50);
  const again = await call(1, token);
  expect(again.status).toBe(200);
  expect(again.headers.get('ratelimit-remaining')).toBe('0');
  await sleep(2100);
  const later = await Promise.all([call(0, token), call(1, token), call(0, token)]);
  expect(later.map((a) => a.status).sort()).toEqual([200, 200, 429]);
}, 15_000);

it('charges an operation costing more than the bucket the whole bucket: it runs once the bucket is full', async () => {
  const token = await service.tokenWith(['read_products']);
  // Twelve root fields cost twelve requests, more than the bucket of ten: it waits for a full one.
  const query = `{ ${Array.from({ length: 12 }, (_, i) => `a${i}: product(id: 1) { id }`).join(' ')} }`;
  const post = (i: number) =>
    call(i, token, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
  const first = await post(0);
  expect(first.status).toBe(200);
  expect(first.headers.get('ratelimit-remaining')).toBe('0');
  const next = await post(1);
  expect(next.status).toBe(429);
});

it('lets several processes start at once with one ADMIN_TOKEN: its row is created once, none fails', async () => {
  const secret = 'concurrent-admin-token-0123456789';
  await Promise.all(Array.from({ length: 4 }, () => ensureFirstToken(service.orm.em.fork(), secret)));
  const rows = await service.sql<{ n: number }>('select count(*)::int as n from api_token where secret_hash = ?', [
    hashSecret(secret),
  ]);
  expect(rows[0].n).toBe(1);
});
