import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { type Context, handleProtocols } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { authenticate, type Principal } from '../auth/api-tokens.js';
import { ConnectionSlots } from '../auth/connection-slots.js';
import { RATE_LIMITED, type RateLimiter, rateLimitedMessage } from '../auth/rate-limit.js';
import { EventWakeups } from '../db/event-wakeups.js';
import { logger } from '../logger.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import { formatError } from './format-error.js';
import { bearerOf } from './gateway.js';

/** How often an open connection's token is looked up again: a revoked token's socket closes within this. */
const RECHECK_MS = 5000;
/** How long shutdown waits for closed sockets to give their places back (a row left behind expires anyway). */
const RELEASE_WAIT_MS = 3000;

/**
 * What a connection keeps: its caller, its place in `subscription_connection` (src/auth/connection-slots.ts),
 * the timer that looks the token up again, its running subscriptions, and whether it has closed.
 */
type Connection = {
  principal?: Principal;
  slot?: string;
  recheck?: NodeJS.Timeout;
  running?: Set<string>;
  closed?: boolean;
};

export interface SubscriptionLimits {
  /** Open connections per token, over all instances; one more is closed with 4429. */
  connectionsPerToken: number;
  /** Running subscriptions per token, over all instances; one more is refused with RATE_LIMITED. */
  subscriptionsPerToken: number;
  /** How often each instance renews its connections' rows; a dead instance's expire after 3 beats. */
  heartbeatMs: number;
}

type Ctx = Context<Record<string, unknown> | undefined, { socket: WebSocket; request: IncomingMessage } & Connection>;

const authorizationOf = (params: Record<string, unknown> | undefined) =>
  String(params?.Authorization ?? params?.authorization ?? '') || undefined;

/**
 * GraphQL subscriptions over WebSocket at /graphql (docs/integrations.md#subscriptions), with the
 * maintained `graphql-ws` server on `ws`: subprotocol `graphql-transport-ws` (another is closed
 * with 4406), the bearer token in `connectionParams` (`{"Authorization": "Bearer sk_…"}`; none or
 * an unknown one is closed with 4403). The token is looked up again every few seconds, so a
 * revoked token's socket closes (4403). Other upgrade requests are refused. The per-token limits
 * on connections and subscriptions are counted in PostgreSQL over every instance
 * (src/auth/connection-slots.ts); `connection_init` and each `subscribe` cost one request from
 * the token's rate-limit bucket (`limiter`; none when limiting is off).
 */
export async function startSubscriptionServer(
  server: Server,
  schema: GraphQLSchema,
  orm: MikroORM,
  limits: SubscriptionLimits,
  limiter?: RateLimiter,
) {
  const slots = new ConnectionSlots(orm, limits.heartbeatMs);
  slots.start();
  const wakeups = new EventWakeups(orm.config.get('clientUrl')!);
  await wakeups.start();
  const sockets = new WebSocketServer({ noServer: true, handleProtocols, maxPayload: 64 * 1024 });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://x').pathname !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);
  // Sockets whose places are not yet given back: close() waits for them, so no release of a place
  // runs after the database is closed (graphql-ws calls onClose after the server's close resolved).
  let unreleased = 0;
  let drained: (() => void) | undefined;
  sockets.on('connection', () => unreleased++);
  const giveBack = (slot: string) =>
    slots.close(slot).catch((error: unknown) => logger.warn({ err: error }, 'subscription connection not released'));
  // Called once or twice per connection (onDisconnect, then onClose): gives back what it held once.
  const release = async (ctx: Ctx) => {
    ctx.extra.closed = true;
    clearInterval(ctx.extra.recheck);
    const slot = ctx.extra.slot;
    ctx.extra.slot = undefined;
    ctx.extra.principal = undefined;
    if (slot) await giveBack(slot);
  };
  // Called by onError and onComplete (both run for a subscription that fails midway): counts down once.
  const endSubscription = async (ctx: Ctx, id: string) => {
    const slot = ctx.extra.slot;
    if (!slot || !ctx.extra.running?.delete(id)) return;
    await slots.unsubscribe(slot).catch((error: unknown) => logger.warn({ err: error }, 'subscription not counted'));
  };
  const refusal = (message: string) => [new GraphQLError(message, { extensions: { code: RATE_LIMITED } })];
  // biome-ignore lint/correctness/useHookAtTopLevel: graphql-ws's useServer is not a React hook
  const graphqlWs = useServer<Record<string, unknown> | undefined, Connection>(
    {
      schema,
      async onConnect(ctx) {
        const secret = bearerOf(authorizationOf(ctx.connectionParams));
        // connection_init costs one request from the token's bucket, like an HTTP request.
        const authentication = secret ? await authenticate(orm.em.fork(), secret, limiter) : null;
        if (!authentication) return false;
        if (authentication.limit && !authentication.limit.allowed) {
          ctx.extra.socket.close(4429, rateLimitedMessage(authentication.limit));
          return false;
        }
        const { principal } = authentication;
        const slot = await slots.openConnection(principal.tokenId, limits.connectionsPerToken);
        if (!slot) {
          const reason = `Too many connections: a token may hold ${limits.connectionsPerToken} over all instances`;
          ctx.extra.socket.close(4429, reason);
          return false;
        }
        // The socket closed while its place was being taken: give the place back at once.
        if (ctx.extra.closed) {
          await giveBack(slot);
          return false;
        }
        ctx.extra.slot = slot;
        ctx.extra.principal = principal;
        ctx.extra.running = new Set();
        ctx.extra.recheck = setInterval(async () => {
          const still = await authenticate(orm.em.fork(), secret!).catch(() => undefined);
          if (still === null) ctx.extra.socket.close(4403, 'Forbidden: the token was revoked');
        }, RECHECK_MS);
        ctx.extra.recheck.unref();
        return true;
      },
      async onSubscribe(ctx, id) {
        const { principal, slot } = ctx.extra;
        // The socket closed while this message waited: nothing is sent to it any more.
        if (!principal || !slot) {
          return [new GraphQLError('The connection is closing', { extensions: { code: 'BAD_REQUEST' } })];
        }
        // Each subscribe message costs one request, like an HTTP request (docs/integrations.md#subscriptions).
        const charge = await limiter?.charge(principal.tokenId);
        if (charge && !charge.allowed) return refusal(rateLimitedMessage(charge));
        if (!(await slots.subscribe(slot, principal.tokenId, limits.subscriptionsPerToken))) {
          const limit = limits.subscriptionsPerToken;
          return refusal(`Too many subscriptions: a token may run ${limit} at once over all instances`);
        }
        ctx.extra.running?.add(id);
      },
      onComplete: endSubscription,
      context(ctx): GraphQLContext {
        const em = orm.em.fork();
        return { em, principal: ctx.extra.principal!, loaders: new Loaders(em), feedWakeups: wakeups };
      },
      async onError(ctx, id, _payload, errors) {
        await endSubscription(ctx, id);
        return errors.map((e) => formatError(e.toJSON(), e));
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e)) } : undefined,
      async onClose(ctx) {
        await release(ctx);
        if (--unreleased === 0) drained?.();
      },
      onDisconnect: release,
    },
    sockets,
  );
  return {
    async close(): Promise<void> {
      server.off('upgrade', onUpgrade);
      const allReleased = new Promise<void>((resolve) => {
        drained = resolve;
        if (unreleased === 0) resolve();
      });
      await graphqlWs.dispose();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([allReleased, new Promise((resolve) => (timer = setTimeout(resolve, RELEASE_WAIT_MS)))]);
      clearTimeout(timer);
      await slots.stop();
      await wakeups.close();
    },
  };
}
