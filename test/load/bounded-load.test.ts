// D9 of docs/operations.md#hostile-load-findings under load: 200 connections for 10 s from four
// tokens at a server process see no 500 and no "database unavailable", while /healthz keeps
// answering. Like every file in test/load, it runs alone after the parallel suite (`npm test`).
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createDatabase, startTestService, type TestService } from '../support/harness.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

describe('bounded load on 127.0.0.1', () => {
  const ADMIN = 'admission-load-admin-token-0123456789';
  let service: TestService;
  let server: ServerProcess;
  beforeAll(async () => {
    const url = await createDatabase();
    service = await startTestService({ databaseUrl: url });
    server = await startServerProcess(url, ADMIN, { RATE_LIMIT_BURST: '0' });
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    await service.stop();
  });

  it('200 connections for 10 s from four tokens: ' +
    'no 500, no "database unavailable", /healthz within 200 ms', async () => {
    const tokens = await Promise.all(Array.from({ length: 4 }, () => service.tokenWith(['read_orders'])));
    // The claim is about a warm service: one request first compiles the route's operation.
    expect(
      (await fetch(`${server.url}/api/v1/orders?size=250`, { headers: { authorization: `Bearer ${tokens[0]}` } }))
        .status,
    ).toBe(200);
    const load = spawn(
      process.execPath,
      [
        fileURLToPath(new URL('../support/load-generator.mjs', import.meta.url)),
        JSON.stringify({ url: server.url, path: '/api/v1/orders?size=250', tokens, connections: 50, duration: 10 }),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    // The generator is apparatus, not the service: on 2 shared cores it yields the CPU first.
    setPriority(load.pid!, 10);
    try {
      const lines = createInterface({ input: load.stdout! })[Symbol.asyncIterator]();
      expect((await lines.next()).value).toBe('started');
      // Probes from 2 s in (the connections are open and the queue is full) to 9 s.
      await new Promise((r) => setTimeout(r, 2000));
      const probes: { status: number; ms: number }[] = [];
      for (let i = 0; i < 28; i++) {
        const started = performance.now();
        const health = await fetch(`${server.url}/healthz`);
        await health.text();
        probes.push({ status: health.status, ms: performance.now() - started });
        await new Promise((r) => setTimeout(r, 250));
      }
      const outcome = JSON.parse((await lines.next()).value as string) as {
        statuses: Record<string, number>;
        unavailable: number;
        errors: number;
      };
      expect(probes.every((p) => p.status === 200)).toBe(true);
      // Nine probes in ten within 200 ms, none over 1 s: the service, the generator, PostgreSQL and
      // the other Jest worker share 2 cores, and the OS may hold any process back for a few hundred
      // ms whatever it does; the event loop's own rounds are what admission control keeps short.
      const timings = probes.map((p) => Math.round(p.ms)).sort((a, b) => a - b);
      const p90 = timings[Math.ceil(timings.length * 0.9) - 1];
      expect({ p90Under200: p90 < 200, maxUnder1000: timings.at(-1)! < 1000, timings }).toEqual({
        p90Under200: true,
        maxUnder1000: true,
        timings,
      });
      expect(outcome.errors).toBe(0);
      expect(outcome.statuses['500'] ?? 0).toBe(0);
      expect(outcome.unavailable).toBe(0);
      expect(outcome.statuses['200'] ?? 0).toBeGreaterThan(0);
      expect(Object.keys(outcome.statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
    } finally {
      load.kill();
    }
  }, 60_000);
});
