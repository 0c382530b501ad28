import cluster, { type Worker } from 'node:cluster';
import { logger } from '../logger.js';

/** What node:cluster's primary sends a worker with a connection, and what the worker answers. */
interface ClusterMessage {
  cmd?: unknown;
  act?: unknown;
  seq?: unknown;
  ack?: unknown;
}

/** An accepted connection's handle as the primary holds it (a libuv TCP handle). */
interface Handle {
  close(): void;
}

const clusterMessage = (message: unknown): ClusterMessage | undefined =>
  typeof message === 'object' && message !== null && (message as ClusterMessage).cmd === 'NODE_CLUSTER'
    ? (message as ClusterMessage)
    : undefined;

/**
 * Connections the primary handed to a worker that died before it took them (issue 36 item 6).
 *
 * node:cluster's round robin (the default scheduling on Linux) has the primary accept every
 * connection and hand its handle to a free worker over IPC (`{act: 'newconn', seq}`); the primary
 * keeps its own copy open until the worker answers `{ack: seq, accepted}`, then closes it (taken)
 * or hands the connection to another worker (not taken: that worker is shutting down). A worker
 * killed in between never answers, and nothing in Node's cluster ever closes that copy: the
 * connection stays open with nobody to read it, and its client waits for its own timeout: after a
 * `kill -9` of a worker, requests handed over before the primary saw the worker's channel close
 * did (docs/operations.md, "Connections handed to a worker that dies").
 *
 * So the primary watches what it hands each worker: a handle sent and not yet answered for is
 * pending. When the worker's channel closes (it exited, or was killed), it answers for the worker
 * what one that is shutting down answers, "not taken", and the round robin hands those connections
 * to a live worker, which serves them: nobody read a byte of them. With no other worker listening
 * (the round robin gone with its last worker) they are closed instead, so the client learns at
 * once. Both answers are Node's internal cluster protocol (lib/internal/cluster, stable since Node
 * 0.12); should it change, nothing here matches, the primary behaves as Node's alone, and
 * test/web-concurrency.test.ts fails.
 */
export function watchHandoffs(worker: Worker, othersListening: () => boolean): void {
  const child = worker.process;
  const pending = new Map<number, Handle>();
  const send = child.send;
  child.send = function handOff(this: typeof child, ...args: unknown[]) {
    const [message, handle] = args;
    const sent = clusterMessage(message);
    if (sent?.act === 'newconn' && typeof sent.seq === 'number' && handle) pending.set(sent.seq, handle as Handle);
    return (send as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof child.send;
  child.on('internalMessage', (message: unknown) => {
    const answer = clusterMessage(message);
    if (typeof answer?.ack === 'number') pending.delete(answer.ack);
  });
  // A handoff written to a channel that has just closed fails; the connection is still pending
  // here, and the error would otherwise be thrown in the primary (nobody listens on the worker).
  worker.on('error', (error: Error) => logger.warn({ err: error, worker: child.pid }, 'message to a worker failed'));
  // Once the worker is gone for sure. The cluster's own 'exit' listener (added by `fork`, so it
  // runs first) has taken it out of the round robin (and out of `cluster.workers`) if its channel
  // was seen closed; only then can "not taken" not hand a connection back to it. Otherwise (the
  // exit seen first, or a channel whose close Node holds back for a handle the worker never
  // acknowledged) the connections are closed.
  child.once('exit', () => {
    if (pending.size === 0) return;
    const handed = [...pending];
    pending.clear();
    const elsewhere = !(worker.id in (cluster.workers ?? {})) && othersListening();
    for (const [seq, handle] of handed) {
      if (elsewhere) child.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: seq, accepted: false });
      else handle.close();
    }
    logger.warn(
      { worker: child.pid, connections: handed.length, to: elsewhere ? 'another worker' : 'closed' },
      'connections handed to a worker that died before taking them',
    );
  });
}
