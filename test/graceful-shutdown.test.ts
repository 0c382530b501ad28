// Shutdown (docs/operations.md#faults-and-shutdown): SIGTERM lets a request in flight finish,
// refuses new connections, then exits 0, whatever signals repeat during the drain.
import { request } from 'node:http';
import { createDatabase } from './support/harness.js';
import { startServerProcess } from './support/server-process.js';

const ADMIN = 'shutdown-test-admin-token-012345';

it('finishes a request in flight after SIGTERM, then exits 0, even when SIGTERM and SIGINT come again', async () => {
  const server = await startServerProcess(await createDatabase(), ADMIN);
  const url = new URL(`${server.url}/api/v1/customers/5`);
  // A PATCH whose body arrives in two parts: it is in flight when SIGTERM comes.
  const [head, tail] = ['{"notes": ', '"written late"}'];
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${ADMIN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(head + tail),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.write(head);
    setTimeout(() => req.end(tail), 800);
  });
  await new Promise((r) => setTimeout(r, 200));
  const exited = server.signal('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  // A supervisor repeating itself, a second Ctrl-C: the one shutdown goes on (Node's default would exit 143/130).
  process.kill(server.pid, 'SIGTERM');
  process.kill(server.pid, 'SIGINT');
  await new Promise((r) => setTimeout(r, 100));
  await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  const res = await answer;
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body).notes).toBe('written late');
  expect(await exited).toBe(0);
}, 30_000);
