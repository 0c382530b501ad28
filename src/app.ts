import { bodyParser } from '@koa/bodyparser';
import cors from '@koa/cors';
import type { MikroORM } from '@mikro-orm/postgresql';
import Koa, { type Context } from 'koa';
import helmet from 'koa-helmet';
import type { Logger } from 'pino';
import { authenticate } from './auth/api-tokens.js';
import { RateLimiter, type RateLimitSettings } from './auth/rate-limit.js';
import { type BulkOptions, createBulkOperations } from './bulk/bulk-operations.js';
import { postgresIdempotencyStore } from './db/idempotency-store.js';
import { learnCaseFolding } from './domain/text-fold.js';
import { startApollo } from './graphql/apollo.js';
import { buildStoreSchema } from './graphql/build-schema.js';
import { checkColumnCodecs } from './graphql/column-codecs.js';
import { anonymousRefusal, documentGuard } from './graphql/document-guard.js';
import { bearerOf, createGateway, type ReplicaRouting } from './graphql/gateway.js';
import { graphiqlMiddleware } from './graphql/graphiql.js';
import { koaApollo } from './graphql/koa-apollo.js';
import { graphqlReferenceMiddleware } from './graphql/reference-page.js';
import { type AdmissionLimits, admission, admissionLimits } from './http/admission.js';
import { landingPageMiddleware } from './http/landing-page.js';
import { queryBound } from './http/query-bound.js';
import { sameHostWebSockets } from './http/same-host-websockets.js';
import { bodyTimeout, DEFAULT_TIMEOUTS } from './http/timeouts.js';
import { logger } from './logger.js';
import { appErrorListener } from './observability/app-errors.js';
import { graphqlOperationSpans } from './observability/graphql-spans.js';
import { operationsMiddleware } from './observability/health.js';
import { measurePoolWait } from './observability/pool-wait.js';
import { requestLog } from './observability/request-log.js';
import { tracingOn } from './observability/tracing-state.js';
import { checkDeclaredReads } from './reads/read-plan.js';
import { apiDocsMiddleware } from './rest/api-docs.js';
import { notFoundMiddleware, problemMiddleware } from './rest/middleware.js';
import { type ExportLimits, OpenExports } from './rest/open-exports.js';
import { Problem } from './rest/problem.js';
import { MAX_BODY_BYTES } from './rest/request-input.js';
import { checkRouteScopes, deriveRestApi } from './rest/rest-api.js';
import { restRouter } from './rest/router.js';
import { routes } from './rest/routes.js';

export interface AppOptions {
  orm: MikroORM;
  publicUrl?: string;
  /** Origins allowed to call from browsers (CORS); none unless configured. */
  corsOrigins?: string[];
  /** Where request lines go (the service's logger unless a test captures them). */
  requestLogger?: Logger;
  /** Per-token bucket (RATE_LIMIT_BURST, RATE_LIMIT_RPS); absent or 0 → no limiting. */
  rateLimit?: RateLimitSettings;
  /** ALLOWED_HOSTS: Host headers that may appear in links when PUBLIC_URL is unset. */
  allowedHosts?: string[];
  /** BODY_TIMEOUT_MS: how long reading a request body may take (408 after). */
  bodyTimeoutMs?: number;
  /** IDEMPOTENCY_LEASE_MS: how long a crashed holder's Idempotency-Key stays blocked. */
  idempotencyLeaseMs?: number;
  /** MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_TOKEN, ADMISSION_QUEUE_MS, ADMISSION_QUEUE_MAX. */
  admission?: Partial<AdmissionLimits>;
  /** DATABASE_READ_URL: replicas for reads, and the read-your-writes window. */
  replicas?: ReplicaRouting;
  /** EXPORTS_PER_TOKEN, EXPORT_STALL_TIMEOUT_MS. */
  exports?: Partial<ExportLimits>;
  /**
   * BULK_CONCURRENCY, BULK_MAX_RUNNING, BULK_RETENTION_DAYS, BULK_UPLOAD_MAX_BYTES: given, this
   * process runs bulk operations (and their purge); absent, it only takes uploads.
   */
  bulk?: BulkOptions;
}

/**
 * Whether a `/graphql` request may hold a mutation: a mutation is always spelt `mutation`, so a
 * document without the word surely reads only (and may go to a replica); a false alarm only keeps
 * the request on the primary. A GET carries no body and may not mutate.
 */
function mayWrite(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const operations = Array.isArray(body) ? body : [body];
  return operations.some((op) => typeof op?.query !== 'string' || /\bmutation\b/.test(op.query));
}

const EXPOSED_HEADERS = [
  'ETag',
  'Link',
  'X-Request-Id',
  'X-Pagination-Total-Count',
  'X-Pagination-Page-Count',
  'X-Pagination-Current-Page',
  'X-Pagination-Per-Page',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
];

/**
 * The Koa application: GraphiQL, `/graphql` (Apollo) and `/api/v1` (the REST mapping onto the same
 * schema). Every middleware is registered before `app.callback()` is taken (Koa 3 fixes the list).
 */
export async function createApp({
  orm,
  publicUrl,
  corsOrigins = [],
  requestLogger = logger,
  rateLimit,
  allowedHosts = [],
  bodyTimeoutMs = DEFAULT_TIMEOUTS.bodyMs,
  idempotencyLeaseMs = 10_000,
  admission: admissionGiven,
  replicas,
  exports: exportLimits,
  bulk: bulkOptions,
}: AppOptions) {
  const schema = await buildStoreSchema();
  checkDeclaredReads(orm.getMetadata());
  checkColumnCodecs(schema, orm.getMetadata());
  await learnCaseFolding(orm);
  const rest = deriveRestApi(schema, routes);
  checkRouteScopes(schema, routes);
  const gateway = createGateway(schema, orm, RateLimiter.create(orm, rateLimit), replicas);
  const apollo = await startApollo(gateway);
  await measurePoolWait(orm);
  const exports = new OpenExports(exportLimits);
  const readBody = bodyTimeout(
    bodyTimeoutMs,
    // Every JSON media type the 415 check lets through (`application/merge-patch+json` …) is read as
    // JSON; the parser's own list would leave such a body unread, a PATCH of nothing. (The parser
    // merges this list into its own index by index: `application/json` stays first.)
    bodyParser({
      enableTypes: ['json'],
      extendTypes: { json: ['application/json', 'application/*+json'] },
      jsonLimit: MAX_BODY_BYTES,
      encoding: 'utf-8',
    }),
  );
  const restOptions = {
    readBody: async (ctx: Context) => {
      // The parser goes on (`next`) only once it has the body: a request the client closed first
      // is left unread, which must not pass for a request without a body (a PATCH of nothing).
      let read = false;
      await readBody(ctx, async () => {
        read = true;
      });
      if (!read) throw new Problem(400, 'The request body did not arrive: the client closed the request');
    },
    gateway,
    publicUrl,
    allowedHosts,
    api: rest,
    idempotency: postgresIdempotencyStore(orm, idempotencyLeaseMs),
    exports,
  };
  const router = restRouter(restOptions);
  const bulk = createBulkOperations({
    orm,
    schema,
    rest: restOptions,
    sessionAs: gateway.sessionAs,
    options: bulkOptions,
  });
  const graphql = koaApollo(apollo.server, async (ctx) => {
    const context = await apollo.context(ctx.get('authorization') || undefined, mayWrite(ctx.request.body));
    // Only /graphql may start a bulk operation (never a REST operation or a bulk line).
    return { ...context, bulkMutations: bulk.mutations };
  });

  const app = new Koa();
  // In place of Koa's stderr stack traces: a client gone mid-answer is its request's 499 line.
  app.on('error', appErrorListener(requestLogger));
  app.use(requestLog(requestLogger));
  // Security headers on every answer; pages (GraphiQL, /docs) load only their own assets, and API
  // answers may load nothing at all. HSTS and `upgrade-insecure-requests` send the browser to https
  // for every asset: only when the public URL is https. Served over plain HTTP (HOST=0.0.0.0, opened
  // by a host name), they left GraphiQL and /docs blank, their scripts asked of an https that is not
  // there (issue 36).
  const https = publicUrl !== undefined && new URL(publicUrl).protocol === 'https:';
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", "'unsafe-eval'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'", sameHostWebSockets],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: https ? [] : null,
        },
      },
      strictTransportSecurity: https,
    }),
  );
  // CORS is off unless CORS_ORIGINS lists the origins allowed to call from a browser.
  if (corsOrigins.length) {
    app.use(
      cors({
        origin: (ctx) => (corsOrigins.includes(ctx.get('origin')) ? ctx.get('origin') : ''),
        exposeHeaders: EXPOSED_HEADERS,
        maxAge: 600,
      }),
    );
  }
  app.use(problemMiddleware);
  app.use(queryBound);
  // Bulk work waits while admitted requests run (src/bulk/interactive-gate.ts).
  const admitted = admission(admissionLimits(admissionGiven), bulk.gate);
  app.use(admitted);
  app.use(
    operationsMiddleware(
      orm,
      (authorization) => gateway.hasScope(authorization, 'read_metrics'),
      replicas && (() => replicas.set.status()),
    ),
  );
  app.use(notFoundMiddleware);
  app.use(graphiqlMiddleware);
  app.use(apiDocsMiddleware(rest, publicUrl));
  app.use(graphqlReferenceMiddleware(schema));
  app.use(landingPageMiddleware);
  // /graphql's body is read here (Apollo reads it parsed), once a token is there at all; REST reads
  // its own once the caller is known (`readBody`), so no body is read or judged for a request
  // refused before it.
  app.use(anonymousRefusal);
  app.use((ctx, next) => (ctx.path === '/graphql' ? readBody(ctx, next) : next()));
  // Charged one request, as the socket charges a refused document (refusals were lookups without
  // limit); the database out of reach: the refusal, which needs none, is the answer.
  const check = async (authorization?: string) => {
    const secret = bearerOf(authorization);
    const token = secret
      ? await authenticate(orm.em.fork(), secret, gateway.limiter).catch(() => 'valid' as const)
      : null;
    if (token === null) return 'unknown' as const;
    return token !== 'valid' && token.limit && !token.limit.allowed ? token.limit : ('valid' as const);
  };
  app.use(documentGuard(check));
  // With tracing on only: a /graphql operation's span (src/observability/graphql-spans.ts).
  if (tracingOn()) app.use(graphqlOperationSpans);
  app.use((ctx, next) => (ctx.path === '/graphql' ? graphql(ctx, next) : next()));
  app.use(bulk.router.routes());
  app.use(router.routes());
  app.use(router.allowedMethods());
  // The service (src/server.ts) always passes its BULK_* settings; an app made without them (a
  // test's, the bench's counting instances) runs no bulk work in the background.
  if (bulkOptions) bulk.runner.start();

  // Stopped once the server has closed its connections: an export still open then (its socket cut
  // at the end of the grace) closes its snapshot before the pool is closed.
  const stop = async () => {
    await bulk.runner.stop();
    await exports.cutAll();
    await apollo.server.stop();
  };
  // The subscription socket's messages take the same admission slots as requests (src/server.ts).
  return { app, gateway, schema, stop, admitted: admitted.run };
}
