import { availableParallelism } from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Context, Next } from 'koa';
import { Counter, Gauge } from 'prom-client';
import { hashSecret } from '../auth/api-tokens.js';
import { ADMISSION_FULL_MESSAGE, OVERLOADED } from '../graphql/error-codes.js';
import { bearerOf } from '../graphql/gateway.js';
import { registry } from '../observability/metrics.js';
import { Problem } from '../rest/problem.js';

export interface AdmissionLimits {
  /** MAX_IN_FLIGHT: API requests this process works on at once. */
  maxInFlight: number;
  /** MAX_IN_FLIGHT_PER_TOKEN: of those, at most this many for one token. */
  maxPerToken: number;
  /** ADMISSION_QUEUE_MS: how long a request over a limit may wait for a slot before a 503. */
  queueMs: number;
  /** ADMISSION_QUEUE_MAX: requests waiting at most, one token's at most half; more are refused at once. */
  maxQueue: number;
}

/**
 * The limits, with what is not given taken from the machine: about two requests per core in flight
 * (past that they only interleave on the one event loop, and every extra one lengthens the loop's
 * round, which probes and short reads wait out), one token one slot short of all of them.
 */
export function admissionLimits(given: Partial<AdmissionLimits> = {}): AdmissionLimits {
  const maxInFlight = given.maxInFlight ?? 2 * availableParallelism();
  return {
    maxInFlight,
    maxPerToken: given.maxPerToken ?? Math.max(1, maxInFlight - 1),
    queueMs: given.queueMs ?? 1000,
    maxQueue: given.maxQueue ?? 200,
  };
}

function metric<T>(name: string, make: () => T): T {
  registry.removeSingleMetric(name);
  return make();
}

const inFlightGauge = metric(
  'http_requests_in_flight',
  () =>
    new Gauge({
      name: 'http_requests_in_flight',
      help: 'API requests being worked on (admitted)',
      registers: [registry],
    }),
);
const queueGauge = metric(
  'http_admission_queue_length',
  () =>
    new Gauge({
      name: 'http_admission_queue_length',
      help: 'API requests waiting for admission',
      registers: [registry],
    }),
);
const refused = metric(
  'http_requests_overloaded_total',
  () =>
    new Counter({
      name: 'http_requests_overloaded_total',
      help: 'API requests refused with 503 overloaded (admission limits)',
      registers: [registry],
    }),
);

/** Only the API is admitted; probes, metrics and static pages always answer. */
const isApi = (ctx: Context) => ctx.path.startsWith('/api/') || ctx.path === '/graphql';

/**
 * Whose slots a request takes: its token as authentication reads it (`bearerOf`: any case of
 * `Bearer`, any spaces), by the secret's hash so the map holds no secrets. Keyed by the raw header,
 * one token in 16 spellings took every slot (issue 36). Requests without a bearer token share one
 * key: they are refused at authentication anyway.
 */
function tokenOf(ctx: Context): string {
  const secret = bearerOf(ctx.get('authorization') || undefined);
  return secret ? hashSecret(secret) : '';
}

/** Told of each request admitted and each done: bulk work yields while any runs (src/bulk/interactive-gate.ts). */
export interface AdmissionWatcher {
  enter(): void;
  leave(): void;
}

/**
 * Admission control (D9 in docs/operations.md#hostile-load-findings): each process works on at most
 * `maxInFlight` API requests at once, and at most `maxPerToken` of them for one token, so a burst
 * queues here, in a bounded FIFO with a bounded wait, instead of piling onto the database pool
 * (where waits past its timeout looked like an outage). A request that finds no slot in time is
 * answered 503 with the distinct type `overloaded` (GraphQL: OVERLOADED) and `Retry-After: 1`;
 * nothing of it ran.
 */
export function admission(limits: AdmissionLimits, watcher?: AdmissionWatcher) {
  let inFlight = 0;
  const perToken = new Map<string, number>();
  const waiting: { token: string; admit: () => void }[] = [];
  const fits = (token: string) => inFlight < limits.maxInFlight && (perToken.get(token) ?? 0) < limits.maxPerToken;
  const enter = (token: string) => {
    inFlight++;
    perToken.set(token, (perToken.get(token) ?? 0) + 1);
    inFlightGauge.set(inFlight);
    watcher?.enter();
  };
  const leave = (token: string) => {
    inFlight--;
    watcher?.leave();
    const left = (perToken.get(token) ?? 1) - 1;
    if (left) perToken.set(token, left);
    else perToken.delete(token);
    // Wake the oldest waiter that now fits (another token's may, when this one is at its cap).
    const next = waiting.findIndex((w) => fits(w.token));
    if (next >= 0) waiting.splice(next, 1)[0].admit();
    inFlightGauge.set(inFlight);
    queueGauge.set(waiting.length);
  };

  function refuse(ctx: Context) {
    refused.inc();
    const problem = Problem.overloaded(ADMISSION_FULL_MESSAGE);
    ctx.status = 503;
    ctx.set(problem.headers);
    if (ctx.path === '/graphql') {
      ctx.type = 'application/json';
      ctx.body = { errors: [{ message: problem.detail, extensions: { code: OVERLOADED } }], extensions: { cost: 0 } };
    } else {
      ctx.type = 'application/problem+json';
      ctx.body = problem.body;
    }
  }

  /**
   * Takes a slot for `token` (a secret's hash, '' for none), waiting in the queue if need be:
   * false when none came in time.
   */
  async function admit(token: string): Promise<boolean> {
    if (fits(token)) {
      enter(token);
      return true;
    }
    // One token may hold at most half the queue: another's requests still find a place in it.
    const queued = waiting.reduce((n, w) => (w.token === token ? n + 1 : n), 0);
    if (waiting.length >= limits.maxQueue || queued >= Math.ceil(limits.maxQueue / 2)) return false;
    return new Promise<boolean>((resolve) => {
      const entry = {
        token,
        admit: () => {
          clearTimeout(timer);
          enter(token);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(entry), 1);
        queueGauge.set(waiting.length);
        resolve(false);
      }, limits.queueMs);
      waiting.push(entry);
      queueGauge.set(waiting.length);
    });
  }

  const middleware = async (ctx: Context, next: Next) => {
    if (!isApi(ctx)) return next();
    const token = tokenOf(ctx);
    if (!(await admit(token))) return refuse(ctx);
    try {
      await next();
      // Koa serialises the body right after this returns; one turn of the loop first, so a
      // request's execution and its serialisation are two slices and probes are read between them.
      await yieldToEventLoop();
    } finally {
      leave(token);
    }
  };
  /**
   * The same slots for work that comes by no HTTP request (the subscription socket's
   * connection_init and subscribe): `work` runs holding one, or undefined comes back at once when
   * none came in time (the caller refuses it as overloaded).
   */
  const run = async <T>(secret: string | null | undefined, work: () => Promise<T>): Promise<T | undefined> => {
    const token = secret ? hashSecret(secret) : '';
    if (!(await admit(token))) {
      refused.inc();
      return undefined;
    }
    try {
      return await work();
    } finally {
      leave(token);
    }
  };
  return Object.assign(middleware, { run });
}
