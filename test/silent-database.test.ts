// A server that stops answering without closing its connections (a paused host, a partition): the
// driver ends the statement with its own read timeout, an error with no code. It is the database's
// absence (503, a replica skipped for the primary), never a 500.
import net from 'node:net';
import pg from 'pg';
import { isDatabaseUnavailable } from '../src/db/database-errors.js';

it('takes the driver read timeout of a server that went silent as the database being unavailable', async () => {
  const target = new URL(process.env.TEST_PG_ADMIN_URL!);
  let silent = false;
  const sockets: net.Socket[] = [];
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(target.port), target.hostname);
    sockets.push(client, server);
    client.on('data', (chunk) => silent || server.write(chunk));
    server.on('data', (chunk) => silent || client.write(chunk));
    for (const socket of [client, server]) socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const via = new URL(target);
  via.hostname = '127.0.0.1';
  via.port = String((proxy.address() as net.AddressInfo).port);
  const client = new pg.Client({ connectionString: via.toString(), query_timeout: 300 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    silent = true;
    const error = await client.query('select 1').catch((e: unknown) => e);
    expect((error as Error).message).toBe('Query read timeout');
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(new Error('syntax error at or near "x"'))).toBe(false);
  } finally {
    await client.end().catch(() => undefined);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy.close(resolve));
  }
});
