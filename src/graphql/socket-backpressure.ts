import type { WebSocket } from 'ws';
import { socketsCutForBackpressure } from '../observability/metrics.js';

/**
 * Bytes a socket may have queued and unsent (in ws and in Node's stream, `bufferedAmount`) before
 * more is sent to it. A reader that keeps up never comes near it: one message of any size always
 * goes out when the queue is short, so a large event reaches a client that reads.
 */
export const SOCKET_QUEUE_MAX = 1024 * 1024;

/**
 * Bounds what one WebSocket can make the process hold for it (docs/operations.md#which-guard-applies-where).
 * A client that sends and never reads would otherwise have every answer queued in memory: graphql-ws
 * echoes each `ping` message's payload in a `pong`, ws answers each protocol ping, and events are
 * pushed as they come; a few thousand 60 KiB pings exhausted the heap. Before anything is sent,
 * and on every protocol ping (whose pong ws queues itself), a socket whose queue is already over
 * SOCKET_QUEUE_MAX is destroyed: it is not reading, and a close frame would only queue behind the
 * rest. Incoming messages are bounded by the server's `maxPayload`.
 */
export function boundSends(socket: WebSocket, max = SOCKET_QUEUE_MAX): void {
  let cut = false;
  const overQueued = () => {
    if (cut || socket.bufferedAmount <= max) return false;
    cut = true;
    socketsCutForBackpressure.inc();
    socket.terminate();
    return true;
  };
  const send = socket.send as (...args: unknown[]) => void;
  socket.send = ((...args: unknown[]) => {
    if (!overQueued() && !cut) return send.apply(socket, args);
    // Dropped, as ws drops a send to a closed socket: the callback hears of it, nobody waits.
    const callback = args.find((arg) => typeof arg === 'function') as ((error: Error) => void) | undefined;
    callback?.(new Error('the socket was closed: its client does not read'));
  }) as WebSocket['send'];
  socket.on('ping', overQueued);
}
