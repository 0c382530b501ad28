// Outbox delivery (docs/decisions.md#notify): two workers running at once send each shipment e-mail
// exactly once through real SMTP (an in-test smtp-server counts them); failures are retried.

import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import { SMTPServer } from 'smtp-server';
import { ormConfig } from '../mikro-orm.config.js';
import { createMailer } from '../src/notifications/mailer.js';
import { OutboxWorker } from '../src/notifications/outbox-worker.js';
import { createDatabase } from './support/harness.js';

interface Sink {
  port: number;
  received: { messageId: string; to: string; subject: string }[];
  failNext: number;
  /** How long the sink takes to accept each message (a slow relay). */
  delayMs: number;
  close(): Promise<void>;
}

async function startSink(): Promise<Sink> {
  const sink: Sink = { port: 0, received: [], failNext: 0, delayMs: 0, close: async () => undefined };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', async () => {
        await new Promise((resolve) => setTimeout(resolve, sink.delayMs));
        if (sink.failNext > 0) {
          sink.failNext--;
          return callback(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }));
        }
        sink.received.push({
          messageId: /^Message-ID: (.*)$/im.exec(raw)?.[1].trim() ?? '',
          to: session.envelope.rcptTo.map((r) => r.address).join(','),
          subject: /^Subject: (.*)$/im.exec(raw)?.[1].trim() ?? '',
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.port = (server.server.address() as AddressInfo).port;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}

let url: string;
let orms: MikroORM[];
let sink: Sink;
beforeAll(async () => {
  url = await createDatabase();
  orms = await Promise.all([1, 2].map(() => MikroORM.init(ormConfig(url))));
  sink = await startSink();
});
afterAll(async () => {
  await sink.close();
  await Promise.all(orms.map((o) => o.close()));
});

async function enqueue(count: number): Promise<void> {
  const conn = orms[0].em.getConnection();
  await conn.execute('delete from outbox_message');
  for (let i = 1; i <= count; i++) {
    const payload = {
      to: `buyer${i}@example.com`,
      orderId: i,
      shipmentId: 1000 + i,
      trackingNumber: `T${i}`,
      trackingUrl: `https://t.example/T${i}`,
      carrier: 'UPS',
      event: 'shipped',
    };
    await conn.execute("insert into outbox_message (kind, payload, created_at) values ('shipment_mail', ?, now())", [
      JSON.stringify(payload),
    ]);
  }
}

it('two workers at once send each message exactly once and mark it sent', async () => {
  await enqueue(40);
  sink.received = [];
  const smtp = `smtp://127.0.0.1:${sink.port}`;
  const workers = orms.map(
    (orm) => new OutboxWorker(orm, createMailer(smtp, 'Store <store@example.com>'), { batchSize: 3 }),
  );
  // Both drain concurrently until nothing is left.
  const drain = async (worker: OutboxWorker) => {
    let total = 0;
    for (;;) {
      const sent = await worker.runOnce();
      total += sent;
      if (sent === 0) return total;
    }
  };
  const [a, b] = await Promise.all(workers.map(drain));
  expect(a + b).toBe(40);
  expect(a).toBeGreaterThan(0);
  expect(b).toBeGreaterThan(0);
  expect(sink.received).toHaveLength(40);
  expect(new Set(sink.received.map((m) => m.messageId)).size).toBe(40);
  expect(new Set(sink.received.map((m) => m.to)).size).toBe(40);
  expect(sink.received[0].subject).toMatch(/has shipped/);
  const [row] = await orms[0].em
    .getConnection()
    .execute<{ unsent: number }[]>('select count(*)::int as unsent from outbox_message where sent_at is null');
  expect(row.unsent).toBe(0);
});

it('retries a failed delivery later with back-off, then sends it once', async () => {
  await enqueue(1);
  sink.received = [];
  sink.failNext = 1;
  const worker = new OutboxWorker(orms[0], createMailer(`smtp://127.0.0.1:${sink.port}`, 'store@example.com'));
  expect(await worker.runOnce()).toBe(0);
  const conn = orms[0].em.getConnection();
  const [failed] = await conn.execute<{ attempts: number; last_error: string; due_in: number }[]>(
    'select attempts, last_error, extract(epoch from next_attempt_at - now())::int as due_in from outbox_message',
  );
  expect(failed.attempts).toBe(1);
  expect(failed.last_error).toMatch(/busy/);
  expect(failed.due_in).toBeGreaterThan(0);
  expect(await worker.runOnce()).toBe(0); // not due yet: nothing is sent early
  await conn.execute('update outbox_message set next_attempt_at = now()');
  expect(await worker.runOnce()).toBe(1);
  expect(sink.received).toHaveLength(1);
  expect(await worker.runOnce()).toBe(0);
});

it('a worker whose round outlasts its lease does not send what another worker took over meanwhile', async () => {
  await enqueue(3);
  sink.received = [];
  sink.delayMs = 800;
  try {
    const smtp = `smtp://127.0.0.1:${sink.port}`;
    const [slow, other] = orms.map(
      (orm) => new OutboxWorker(orm, createMailer(smtp, 'store@example.com'), { batchSize: 3, leaseSeconds: 1 }),
    );
    // The slow worker claims all three, each for a second from now, and takes 0.8 s a message.
    const slowRound = slow.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // By now the third message's lease has lapsed, unsent: the other worker takes it and sends it.
    const otherRound = other.runOnce();
    const [bySlow, byOther] = await Promise.all([slowRound, otherRound]);
    expect(bySlow + byOther).toBe(3);
    expect(byOther).toBeGreaterThan(0);
    expect(sink.received).toHaveLength(3);
    expect(new Set(sink.received.map((m) => m.messageId)).size).toBe(3);
  } finally {
    sink.delayMs = 0;
  }
});
