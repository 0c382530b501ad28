import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { GraphQLError, type GraphQLSchema, OperationTypeNode } from 'graphql';
import type { CarriedTokenCheck } from '../auth/carried-token-check.js';
import {
  RATE_LIMITED,
  type RateLimiter,
  type RateLimitState,
  rateLimitedMessage,
  rateLimitHeaders,
} from '../auth/rate-limit.js';
import { isDatabaseUnavailable, isPoolExhausted } from '../db/database-errors.js';
import { UnauthenticatedError } from '../domain/errors.js';
import { graphqlOperations } from '../observability/metrics.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { MAX_DOCUMENT_TOKENS } from './document-guard.js';
import { HTTP_STATUS_BY_CODE, OVERLOADED, OVERLOADED_RETRY_AFTER, UNAVAILABLE_RETRY_AFTER } from './error-codes.js';
import { formatError } from './format-error.js';
import type { createGateway } from './gateway.js';
import { operationCost } from './operation-cost.js';
import { QueryLimitError } from './query-limits.js';
import {
  BEARER_CHALLENGE,
  checkRefusal,
  databaseUnavailableError,
  overloadedError,
  rateLimitedError,
  unauthenticatedError,
} from './token-refusals.js';

/** A refused operation (no data at all) answers with the status of its refusal: 401, 403, 429. */
const refusalStatusPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        graphqlOperations.inc({ type: operation?.operation ?? 'unknown', via: 'graphql' });
      },
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const { data, errors } = response.body.singleResult;
        if (!errors?.length || (data && Object.values(data).some((v) => v != null))) return;
        // A field below a root field refused (a mutation's answer asking what the token may not
        // read): the root field ran, and a write committed. Its answer is a 200 with the error, not
        // a refused request a client would send again.
        if (errors.some((error) => (error.path?.length ?? 0) > 1)) return;
        const code = String(errors[0].extensions?.code ?? '');
        if (['UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'OVERLOADED'].includes(code))
          response.http.status = HTTP_STATUS_BY_CODE[code];
        // A token refused after execution (its check rode on the read) carries the challenge too.
        if (code === 'UNAUTHENTICATED') response.http.headers.set('www-authenticate', BEARER_CHALLENGE);
        if (code === 'SERVICE_UNAVAILABLE' || code === 'OVERLOADED')
          response.http.headers.set(
            'retry-after',
            code === OVERLOADED ? OVERLOADED_RETRY_AFTER : UNAVAILABLE_RETRY_AFTER,
          );
      },
    };
  },
};

/**
 * Limits of `/graphql` (docs/operations.md#graphql-depth-complexity-and-cost): the token check
 * already took one request from the bucket (src/graphql/request-context.ts `contextFor`); after validation
 * and before execution the operation is measured (src/graphql/operation-cost.ts); one over the
 * depth or complexity limit is refused with 400 QUERY_TOO_DEEP / QUERY_TOO_COMPLEX, and an
 * operation that costs more than one request is charged the rest, a second statement only for such
 * operations. An empty bucket is a 429 RATE_LIMITED before anything runs. Every answer to a valid
 * token carries the `RateLimit-*` headers (`Retry-After` on a 429).
 */
function limitsPlugin(schema: GraphQLSchema, limiter: RateLimiter | undefined): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      let state: RateLimitState | undefined;
      // What the request spent: 1 with the token check, the rest of its cost once measured.
      let spent = 0;
      return {
        async didResolveOperation({ document, operationName, operation, request, contextValue }) {
          let cost = 1;
          let refusal: QueryLimitError | undefined;
          try {
            cost = operationCost(schema, document, operationName, request.variables).cost;
          } catch (error) {
            if (!(error instanceof QueryLimitError)) throw error;
            refusal = error;
          }
          spent = 1; // taken with the token check
          const { check } = contextValue;
          // A check still to come (carried by the read) charges the whole cost itself.
          if (check) check.cost = cost;
          else if (limiter) {
            state = (await limiter.chargeRest(contextValue.principal.tokenId, cost, contextValue.secretHash)) ?? state;
          }
          if (state && !state.allowed) {
            throw new GraphQLError(rateLimitedMessage(state), {
              extensions: { code: RATE_LIMITED, http: { status: 429 } },
            });
          }
          spent = cost;
          if (refusal) throw refusal;
          // A subscription's events are pushed over the socket; over HTTP its root field would run as
          // a query's and find no event to answer with.
          if (operation?.operation === OperationTypeNode.SUBSCRIPTION) {
            throw new GraphQLError(
              'A subscription runs over WebSocket at /graphql (subprotocol graphql-transport-ws), not over HTTP',
              { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
            );
          }
        },
        async willSendResponse({ contextValue, response }) {
          const check = contextValue?.check;
          // Refused before execution (a document that does not parse or validate, a limit): the
          // token is checked now, and an unknown token or a refused charge answers instead.
          let outcome: CarriedTokenCheck['outcome'] | 'unavailable' | 'busy' | undefined;
          try {
            outcome = check?.outcome === 'pending' ? await check.settle(contextValue.em) : undefined;
          } catch (error) {
            // The check could not reach the database, or found no free connection: the whole
            // answer is the outage's 503, or the busy service's.
            if (isPoolExhausted(error)) outcome = 'busy';
            else if (isDatabaseUnavailable(error)) outcome = 'unavailable';
            else throw error;
          }
          if (check && outcome && outcome !== 'passed' && outcome !== 'changed') {
            const refusal =
              outcome === 'unavailable'
                ? databaseUnavailableError()
                : outcome === 'busy'
                  ? overloadedError()
                  : checkRefusal(check);
            response.body = { kind: 'single', singleResult: { errors: [formatError(refusal.toJSON(), refusal)] } };
            // Its status and challenge here: Apollo runs the plugins' hooks at once, not in turn.
            const { status, headers } = refusal.extensions.http as { status: number; headers: Map<string, string> };
            response.http.status = status;
            for (const [name, value] of headers) response.http.headers.set(name.toLowerCase(), value);
          }
          // Every answer says what it cost (0 when nothing was charged: no valid token).
          if (contextValue?.principal && check?.outcome !== 'unauthenticated') spent = Math.max(spent, 1);
          else spent = 0;
          if (response.body.kind === 'single')
            response.body.singleResult.extensions = { ...response.body.singleResult.extensions, cost: spent };
          const latest = state ?? check?.limit ?? contextValue?.limit;
          if (latest)
            for (const [name, value] of Object.entries(rateLimitHeaders(latest)))
              response.http.headers.set(name.toLowerCase(), value);
        },
      };
    },
  };
}

/**
 * `/graphql` executes through the same compiled executor as the REST layer (compiled-execution.ts).
 * Apollo's one way to hand execution over is its gateway interface (made for federation): Apollo
 * keeps parsing, validation, its document cache, plugins and HTTP; the executor runs the operation.
 */
function compiledExecution(gateway: ReturnType<typeof createGateway>): GatewayInterface {
  return {
    async load() {
      return {
        // The name the client sent, not `request.operationName`: that is the one Apollo resolved,
        // null when the document has no such operation, and graphql-js would then run the
        // document's only operation instead of answering "Unknown operation named …" (a 400).
        // A plain page read is answered with PostgreSQL's own JSON where it can be (answer-passthrough.ts);
        // with read replicas, every read takes the gateway's routing.
        executor: async (request) => {
          const {
            document,
            request: { operationName, variables },
          } = request;
          try {
            return await gateway.answer(document, operationName, request.context as GraphQLContext, variables);
          } catch (error) {
            // A statement outside any resolver (the carried token check, PostgreSQL's own answer)
            // found the database gone: the outage's 503, not an unexpected error's 500.
            if (isDatabaseUnavailable(error)) return { errors: [databaseUnavailableError()] };
            throw error;
          }
        },
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: gateway.schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async stop() {},
  };
}

export async function startApollo(gateway: ReturnType<typeof createGateway>) {
  const server = new ApolloServer<GraphQLContext>({
    gateway: compiledExecution(gateway),
    formatError,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // Parse and validation CPU is bounded before any limit below is measured (src/graphql/document-guard.ts).
    parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS },
    // No HTTP caching of answers (every one is per token), so no cache-control bookkeeping, which
    // Apollo would otherwise do around every field of every answer.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      // Federation's inline traces are for a subgraph behind a gateway, which this is not; disabled,
      // Apollo does not load the plugin and its protobuf module, which every idle process would hold.
      ApolloServerPluginInlineTraceDisabled(),
      limitsPlugin(gateway.schema, gateway.limiter),
      refusalStatusPlugin,
    ],
    // Every operation needs an Authorization header, which a cross-site form or <img> cannot send,
    // so Apollo's CSRF guard would only refuse legitimate GET queries
    // (docs/decisions.md#graphql-endpoint allows GET).
    csrfPrevention: false,
    // Shutdown is the server's: finish in-flight requests first (Apollo would exit on the signal).
    stopOnTerminationSignals: false,
  });
  await server.start();
  /** `writes`: whether the request may hold a mutation (its reads then stay on the primary, see replica-routing.ts). */
  const context = async (authorization: string | undefined, writes = true) => {
    let context: GraphQLContext;
    try {
      context = await gateway.contextFor(authorization, writes, true);
    } catch (error) {
      if (isPoolExhausted(error)) throw overloadedError();
      if (isDatabaseUnavailable(error)) throw databaseUnavailableError();
      if (!(error instanceof UnauthenticatedError)) throw error;
      throw unauthenticatedError(error);
    }
    if (context.limit && !context.limit.allowed) throw rateLimitedError(context.limit);
    return context;
  };
  return { server, context };
}
