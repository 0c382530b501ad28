import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  OperationTypeNode,
} from 'graphql';
import { type Context, handleProtocols, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { authenticate, type Principal } from '../auth/api-tokens.js';
import { ConnectionSlots } from '../auth/connection-slots.js';
import { RATE_LIMITED, type RateLimiter, rateLimitedMessage } from '../auth/rate-limit.js';
import { isDatabaseUnavailable, isPoolExhausted, isStatementTimeout } from '../db/database-errors.js';
import { EventWakeups } from '../db/event-wakeups.js';
import { logger } from '../logger.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import { boundedAnswer, variableError } from './compiled-execution.js';
import { parseOperation, sourceRefusal } from './document-guard.js';
import { ADMISSION_FULL_MESSAGE, OVERLOADED } from './error-codes.js';
import { formatError } from './format-error.js';
import { bearerOf } from './gateway.js';
import { operationCost } from './operation-cost.js';
import { QueryLimitError } from './query-limits.js';
import { boundSends } from './socket-backpressure.js';
import { databaseUnavailableError } from './token-refusals.js';

/** How often an open connection's token is looked up again: a revoked token's socket closes within this. */
const RECHECK_MS = 5000;
/** How long shutdown waits for closed sockets to give their places back (a row left behind expires anyway). */
const RELEASE_WAIT_MS = 3000;

/**
 * Runs work within the process's admission slots, as HTTP requests take them (src/http/admission.ts
 * `run`, given by src/server.ts); undefined when no slot came in time.
 */
type Admitted = <T>(secret: string | null | undefined, work: () => Promise<T>) => Promise<T | undefined>;

/**
 * What a connection keeps: its token's secret, its place in `subscription_connection` (src/auth/connection-slots.ts),
 * the timer that looks the token up again, its running subscriptions, and whether it has closed.
 */
type Connection = {
  /** The token's secret, checked again with each `subscribe` (its scopes as they are then). */
  secret?: string;
  slot?: string;
  recheck?: NodeJS.Timeout;
  running?: Set<string>;
  closed?: boolean;
  /** The `subscribe` under way: the next waits for it (one at a time per socket). */
  subscribing?: Promise<unknown>;
  /** `subscribe` messages taken and not yet answered (SUBSCRIBES_WAITING at most). */
  waiting?: number;
};

/** `subscribe` messages a socket may have waiting their turn; more are refused at once, unread. */
const SUBSCRIBES_WAITING = 16;

export interface SubscriptionLimits {
  /** Open connections per token, over all instances; one more is closed with 4429. */
  connectionsPerToken: number;
  /** Running subscriptions per token, over all instances; one more is refused with RATE_LIMITED. */
  subscriptionsPerToken: number;
  /** How often each instance renews its connections' rows; a dead instance's expire after 3 beats. */
  heartbeatMs: number;
}

type Ctx = Context<Record<string, unknown> | undefined, { socket: WebSocket; request: IncomingMessage } & Connection>;

/** The token's header from `connectionParams`: a string, else none (closed 4403 as a missing token). */
function authorizationOf(params: Record<string, unknown> | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization;
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * A `subscribe` message's operation through the guards of POST /graphql, in their order: the
 * source's nesting and variables (src/graphql/document-guard.ts), parsing with the token limit and
 * validation, then depth, complexity and cost (src/graphql/operation-cost.ts). The socket carries
 * subscriptions only: a query or mutation is refused here (POST /graphql runs them, admitted and
 * charged there), so nothing runs over the socket that HTTP would have bounded.
 */
function guardSubscription(
  schema: GraphQLSchema,
  payload: SubscribePayload,
): { document: DocumentNode; cost: number } | readonly GraphQLError[] {
  const refused = sourceRefusal(payload.query, payload.variables);
  if (refused) return [refused];
  const document = parseOperation(schema, payload.query);
  if (!('kind' in document)) return document;
  const operation = getOperationAST(document, payload.operationName);
  if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
    const message = operation
      ? `This socket carries subscriptions only: send a ${operation.operation} to POST /graphql`
      : "Unable to identify the operation: name one of the document's operations in operationName";
    return [new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } })];
  }
  try {
    const variables = (payload.variables ?? undefined) as Record<string, unknown> | undefined;
    return { document, cost: operationCost(schema, document, payload.operationName, variables).cost };
  } catch (error) {
    if (error instanceof QueryLimitError) return [error];
    throw error;
  }
}

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
/**
 * The path of an upgrade's request target, or null for one that is no URL: Node's parser accepts
 * targets such as `//a:99999/graphql` that `new URL` throws on, and a throw in the 'upgrade'
 * listener is an uncaught exception.
 */
function upgradePath(target: string | undefined): string | null {
  try {
    return new URL(target ?? '/', 'http://x').pathname;
  } catch {
    return null;
  }
}

export async function startSubscriptionServer(
  server: Server,
  schema: GraphQLSchema,
  orm: MikroORM,
  limits: SubscriptionLimits,
  limiter?: RateLimiter,
  admitted: Admitted = (_, work) => work(),
) {
  const slots = new ConnectionSlots(orm, limits.heartbeatMs);
  slots.start();
  const wakeups = new EventWakeups(orm.config.get('clientUrl')!);
  await wakeups.start();
  const sockets = new WebSocketServer({ noServer: true, handleProtocols, maxPayload: 64 * 1024 });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (upgradePath(request.url) !== '/graphql') {
      // Node takes its own error listener off an upgraded socket: a client gone before the answer
      // is written would otherwise be an unhandled 'error' event, which ends the process.
      socket.on('error', () => socket.destroy());
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
  sockets.on('connection', (socket) => {
    unreleased++;
    boundSends(socket);
  });
  const giveBack = (slot: string) =>
    slots.close(slot).catch((error: unknown) => logger.warn({ err: error }, 'subscription connection not released'));
  // Called once or twice per connection (onDisconnect, then onClose): gives back what it held once.
  const release = async (ctx: Ctx) => {
    ctx.extra.closed = true;
    clearInterval(ctx.extra.recheck);
    const slot = ctx.extra.slot;
    ctx.extra.slot = undefined;
    ctx.extra.secret = undefined;
    if (slot) await giveBack(slot);
  };
  // Called by onError and onComplete (both run for a subscription that fails midway): counts down once.
  const endSubscription = async (ctx: Ctx, id: string) => {
    const slot = ctx.extra.slot;
    if (!slot || !ctx.extra.running?.delete(id)) return;
    await slots.unsubscribe(slot).catch((error: unknown) => logger.warn({ err: error }, 'subscription not counted'));
  };
  const refusal = (message: string) => [new GraphQLError(message, { extensions: { code: RATE_LIMITED } })];
  /** connection_init: the token checked and charged, and a place taken for the socket; false refuses it. */
  const admit = async (ctx: Ctx, secret: string | null): Promise<boolean> => {
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
    ctx.extra.secret = secret!;
    ctx.extra.running = new Set();
    ctx.extra.recheck = setInterval(async () => {
      const still = await authenticate(orm.em.fork(), secret!).catch(() => undefined);
      if (still === null) ctx.extra.socket.close(4403, 'Forbidden: the token was revoked');
    }, RECHECK_MS);
    ctx.extra.recheck.unref();
    return true;
  };

  /** A `subscribe`: the guards of POST /graphql in its order, each request charged as HTTP charges it. */
  const subscribe = async (ctx: Ctx, id: string, payload: SubscribePayload) => {
    const { secret, slot } = ctx.extra;
    // The socket closed while this message waited: nothing is sent to it any more.
    if (!secret || !slot) {
      return [new GraphQLError('The connection is closing', { extensions: { code: 'BAD_REQUEST' } })];
    }
    let guarded: ReturnType<typeof guardSubscription>;
    let principal: Principal;
    try {
      // The token checked as each HTTP request checks it, and one request charged, before anything is
      // parsed (a refused document spends it too): a token revoked since connection_init reads
      // nothing more (the recheck would close the socket only up to RECHECK_MS later), and the
      // subscription runs with the scopes the token has now.
      const authentication = await authenticate(orm.em.fork(), secret, limiter);
      if (!authentication) {
        // Closed once this refusal is sent (a macrotask: after graphql-ws's send of it).
        setTimeout(() => ctx.extra.socket.close(4403, 'Forbidden: the token was revoked'), 0);
        return [new GraphQLError('The token was revoked', { extensions: { code: 'UNAUTHENTICATED' } })];
      }
      if (authentication.limit && !authentication.limit.allowed)
        return refusal(rateLimitedMessage(authentication.limit));
      principal = authentication.principal;
      // The guards of POST /graphql, in its order (docs/operations.md#which-guard-applies-where).
      guarded = guardSubscription(schema, payload);
      if (!('document' in guarded)) return guarded;
      // Then the rest of what its operation costs, like an HTTP request (docs/integrations.md#subscriptions).
      const charge = await limiter?.chargeRest(principal.tokenId, guarded.cost);
      if (charge && !charge.allowed) return refusal(rateLimitedMessage(charge));
      // Variables it cannot take: BAD_USER_INPUT naming each, as POST answers them (a message of
      // errors, never a `next` of them).
      const badVariables = variableError(schema, guarded.document, payload.operationName, payload.variables ?? {});
      if (badVariables) return [badVariables];
      const running = ctx.extra.running?.size ?? 0;
      if (!(await slots.subscribe(slot, principal.tokenId, limits.subscriptionsPerToken, running))) {
        const limit = limits.subscriptionsPerToken;
        return refusal(`Too many subscriptions: a token may run ${limit} at once over all instances`);
      }
    } catch (error) {
      // This subscription's error, as format-error.ts words it (the database out of reach, the
      // pool busy: OVERLOADED), never the close of the whole socket and its other subscriptions.
      return [new GraphQLError((error as Error).message, { originalError: error as Error })];
    }
    ctx.extra.running?.add(id);
    const em = orm.em.fork();
    const contextValue: GraphQLContext = { em, principal, loaders: new Loaders(em), feedWakeups: wakeups };
    return {
      schema,
      document: guarded.document,
      operationName: payload.operationName,
      variableValues: payload.variables,
      contextValue,
    };
  };

  // biome-ignore lint/correctness/useHookAtTopLevel: graphql-ws's useServer is not a React hook
  const graphqlWs = useServer<Record<string, unknown> | undefined, Connection>(
    {
      schema,
      // No error's own text in a close reason (graphql-ws sends it unless this is set), whatever NODE_ENV says.
      isProd: true,
      async onConnect(ctx) {
        try {
          // Within the process's admission slots, as every HTTP request: a flood of connection_init
          // messages (each a token lookup) queues there, not on the database pool.
          const secret = bearerOf(authorizationOf(ctx.connectionParams));
          const admittedNow = await admitted(secret, () => admit(ctx, secret));
          if (admittedNow === undefined) ctx.extra.socket.close(1013, ADMISSION_FULL_MESSAGE);
          return admittedNow ?? false;
        } catch (error) {
          if (!isDatabaseUnavailable(error) && !isPoolExhausted(error) && !isStatementTimeout(error)) throw error;
          // 1013 "Try Again Later": the token could not be looked up now (the database out of reach,
          // or too busy), nothing is wrong with it.
          ctx.extra.socket.close(1013, databaseUnavailableError().message);
          return false;
        }
      },
      onSubscribe(ctx, id, payload) {
        // One subscribe at a time per socket, as HTTP admits requests: a flood of them waits its
        // turn instead of parsing side by side and holding a pool connection each, and past
        // SUBSCRIBES_WAITING is refused without being read (as HTTP's admission queue is bounded).
        if ((ctx.extra.waiting ?? 0) >= SUBSCRIBES_WAITING) {
          const message = `Too many subscribe messages waiting on this connection (at most ${SUBSCRIBES_WAITING})`;
          return [new GraphQLError(message, { extensions: { code: RATE_LIMITED } })];
        }
        ctx.extra.waiting = (ctx.extra.waiting ?? 0) + 1;
        const overloaded = () => [new GraphQLError(ADMISSION_FULL_MESSAGE, { extensions: { code: OVERLOADED } })];
        const turn = (ctx.extra.subscribing ?? Promise.resolve())
          .then(async () => (await admitted(ctx.extra.secret, () => subscribe(ctx, id, payload))) ?? overloaded())
          .finally(() => {
            ctx.extra.waiting = (ctx.extra.waiting ?? 1) - 1;
          });
        ctx.extra.subscribing = turn.catch(() => undefined);
        return turn;
      },
      onComplete: endSubscription,
      async onError(ctx, id, _payload, errors) {
        await endSubscription(ctx, id);
        return errors.map((e) => formatError(e.toJSON(), e));
      },
      // Each `next` bounded as any answer is before it is serialised (aliases repeating an event's data).
      onNext: (_ctx, _id, _payload, args, result) => {
        const bounded = boundedAnswer(args.document, args.operationName, result as ExecutionResult);
        return bounded.errors
          ? { ...bounded, errors: bounded.errors.map((e) => formatError(e.toJSON(), e)) }
          : undefined;
      },
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
