// OpenTelemetry traces (docs/operations.md#traces), loaded only when OTEL_EXPORTER_OTLP_ENDPOINT
// (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, by tracing-preload.ts through `node --import`:
// the module hooks must be in place before the service's modules are loaded. With it, each request
// is one trace: the HTTP server span (instrumentation-http), the REST route (instrumentation-koa's
// @koa/router span), the GraphQL operation (a span made by hand: compiled execution and the JSON
// PostgreSQL writes never pass through graphql-js's execute, which the graphql instrumentation
// wraps), each SQL statement (instrumentation-pg: the statement's text with every literal as `?`,
// its $n placeholders kept, never the values), and, later, the webhook deliveries its events queued
// (their POST carries `traceparent`) and the lines of the bulk operation it made, run in the
// background by the runner.
//
// The standard variables apply: OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT,
// _COMPRESSION and the certificate ones (read by the exporter, OTLP/HTTP with JSON),
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG,
// OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
// OTEL_BSP_EXPORT_TIMEOUT; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none keep it off.
import { context, propagation, ROOT_CONTEXT, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { getRPCMetadata, RPCType, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { register as registerImportHooks } from 'import-in-the-middle/register-hooks.mjs';
import { sqlWithoutValues } from './sql-text.js';
import { installTracing, type SpanHandle } from './tracing-state.js';

/** The modules whose ESM imports are hooked (every other module loads as it would without tracing). */
const HOOKED = ['http', 'https', 'node:http', 'node:https', 'pg', 'pg-pool', 'koa'];

/** Requests that are no one's operation: probes and scrapes (they would be most of the traces). */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the specification names them (default parentbased_always_on). */
function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  const root = new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1);
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return root;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function positive(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && Number.isFinite(number) && number >= 0 ? number : undefined;
}

function start(env: NodeJS.ProcessEnv) {
  registerImportHooks({ include: HOOKED });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'store-api' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerFromEnv(env),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY),
        maxQueueSize: positive(env.OTEL_BSP_MAX_QUEUE_SIZE),
        maxExportBatchSize: positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE),
        exportTimeoutMillis: positive(env.OTEL_BSP_EXPORT_TIMEOUT),
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED.has((request.url ?? '').split('?')[0]),
        // Only a request of ours (a webhook delivery) goes out in a trace; nothing else starts one.
        requireParentforOutgoingSpans: true,
      }),
      // Routes only: one span per @koa/router route, none per middleware (fifteen per request).
      new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
      // Statements inside a request or a delivery; the workers' polls start no trace of their own.
      // Its text without values: MikroORM inlines them in the text, so the request hook (run as the
      // span starts) overwrites the raw `db.query.text` this version sets with the text whose every
      // literal is `?` (sql-text.ts). The values array sent beside $n placeholders is never recorded
      // (enhancedDatabaseReporting off).
      new PgInstrumentation({
        requireParentSpan: true,
        ignoreConnectSpans: true,
        enhancedDatabaseReporting: false,
        requestHook: (span, { query }) => {
          if (query.text) span.setAttribute('db.query.text', sqlWithoutValues(query.text));
        },
      }),
    ],
  });

  const tracer = provider.getTracer('store-api');
  const handle = (span: Span): SpanHandle => ({
    setAttribute: (name, value) => span.setAttribute(name, value),
    updateName: (name) => span.updateName(name),
    fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
  });
  installTracing({
    async span(name, attributes, work, parent) {
      const base = parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : context.active();
      return tracer.startActiveSpan(name, { attributes }, base, async (span) => {
        try {
          return await work(handle(span));
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ?? null;
    },
    setHttpRoute(route) {
      const metadata = getRPCMetadata(context.active());
      if (metadata?.type === RPCType.HTTP) metadata.route = route;
    },
    flush: () => provider.forceFlush(),
  });
}

start(process.env);
