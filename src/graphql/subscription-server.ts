import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { type Context, handleProtocols } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { authenticate, type Principal } from '../auth/api-tokens.js';
import { EventWakeups } from '../db/event-wakeups.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import { formatError } from './format-error.js';
import { bearerOf } from './gateway.js';

/** How often an open connection's token is looked up again: a revoked token's socket closes within this. */
const RECHECK_MS = 5000;

/** What a connection keeps: its caller, the timer that looks the token up again, its running subscriptions. */
type Connection = { principal?: Principal; recheck?: NodeJS.Timeout; running?: Set<string> };

export interface SubscriptionLimits {
  /** Open connections per token on this instance; one more is closed with 4429. */
  connectionsPerToken: number;
  /** Running subscriptions per token on this instance; one more is refused with RATE_LIMITED. */
  subscriptionsPerToken: number;
}

/** How many of something each token holds on this instance. */
class PerToken {
  private readonly counts = new Map<number, number>();
  take(tokenId: number, limit: number): boolean {
    const held = this.counts.get(tokenId) ?? 0;
    if (held >= limit) return false;
    this.counts.set(tokenId, held + 1);
    return true;
  }
  give(tokenId: number, n = 1): void {
    const left = (this.counts.get(tokenId) ?? 0) - n;
    if (left > 0) this.counts.set(tokenId, left);
    else this.counts.delete(tokenId);
  }
}

type Ctx = Context<Record<string, unknown> | undefined, { socket: WebSocket; request: IncomingMessage } & Connection>;

const authorizationOf = (params: Record<string, unknown> | undefined) =>
  String(params?.Authorization ?? params?.authorization ?? '') || undefined;

/**
 * GraphQL subscriptions over WebSocket at /graphql (docs/integrations.md#subscriptions), with the
 * maintained `graphql-ws` server on `ws`: subprotocol `graphql-transport-ws` (another is closed
 * with 4406), the bearer token in `connectionParams` (`{"Authorization": "Bearer sk_…"}`; none or
 * an unknown one is closed with 4403). The token is looked up again every few seconds, so a
 * revoked token's socket closes (4403). Other upgrade requests are refused.
 */
export async function startSubscriptionServer(
  server: Server,
  schema: GraphQLSchema,
  orm: MikroORM,
  limits: SubscriptionLimits,
) {
  const connections = new PerToken();
  const running = new PerToken();
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
  // Called once or twice per connection (onDisconnect, then onClose): gives back what it held once.
  const release = (ctx: Ctx) => {
    clearInterval(ctx.extra.recheck);
    const principal = ctx.extra.principal;
    if (!principal) return;
    ctx.extra.principal = undefined;
    connections.give(principal.tokenId);
    running.give(principal.tokenId, ctx.extra.running?.size ?? 0);
  };
  // biome-ignore lint/correctness/useHookAtTopLevel: graphql-ws's useServer is not a React hook
  const graphqlWs = useServer<Record<string, unknown> | undefined, Connection>(
    {
      schema,
      async onConnect(ctx) {
        const secret = bearerOf(authorizationOf(ctx.connectionParams));
        const authentication = secret ? await authenticate(orm.em.fork(), secret) : null;
        if (!authentication) return false;
        if (!connections.take(authentication.principal.tokenId, limits.connectionsPerToken)) {
          const reason = `Too many connections: a token may hold ${limits.connectionsPerToken} on one instance`;
          ctx.extra.socket.close(4429, reason);
          return false;
        }
        ctx.extra.principal = authentication.principal;
        ctx.extra.running = new Set();
        ctx.extra.recheck = setInterval(async () => {
          const still = await authenticate(orm.em.fork(), secret!).catch(() => undefined);
          if (still === null) ctx.extra.socket.close(4403, 'Forbidden: the token was revoked');
        }, RECHECK_MS);
        ctx.extra.recheck.unref();
        return true;
      },
      onSubscribe(ctx, id) {
        const principal = ctx.extra.principal!;
        if (!running.take(principal.tokenId, limits.subscriptionsPerToken)) {
          const limit = limits.subscriptionsPerToken;
          const message = `Too many subscriptions: a token may run ${limit} at once on one instance`;
          return [new GraphQLError(message, { extensions: { code: 'RATE_LIMITED' } })];
        }
        ctx.extra.running!.add(id);
      },
      onComplete(ctx, id) {
        if (ctx.extra.principal && ctx.extra.running?.delete(id)) running.give(ctx.extra.principal.tokenId);
      },
      context(ctx): GraphQLContext {
        const em = orm.em.fork();
        return { em, principal: ctx.extra.principal!, loaders: new Loaders(em), feedWakeups: wakeups };
      },
      onError(ctx, id, _payload, errors) {
        if (ctx.extra.principal && ctx.extra.running?.delete(id)) running.give(ctx.extra.principal.tokenId);
        return errors.map((e) => formatError(e.toJSON(), e));
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e)) } : undefined,
      onClose: release,
      onDisconnect: release,
    },
    sockets,
  );
  return {
    async close(): Promise<void> {
      server.off('upgrade', onUpgrade);
      await graphqlWs.dispose();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await wakeups.close();
    },
  };
}
