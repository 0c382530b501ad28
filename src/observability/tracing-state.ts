/**
 * Traces as the rest of the service sees them (docs/operations.md#traces): off unless
 * src/observability/tracing.ts was loaded, by `--import` of tracing-preload.ts, because
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. This module imports nothing of OpenTelemetry: with tracing
 * off, what calls it runs its work directly, and no middleware or span exists.
 */

/** What a hand-made span takes while it runs. */
export interface SpanHandle {
  setAttribute(name: string, value: string | number | boolean): void;
  updateName(name: string): void;
  /** Marks the span failed (an exception or a 5xx). */
  fail(message: string): void;
}

export interface Tracing {
  /**
   * Runs `work` in a new span, a child of the active one, or of `parent` (a W3C `traceparent`,
   * e.g. one stored with a webhook delivery) when given.
   */
  span<T>(
    name: string,
    attributes: Record<string, string | number | boolean>,
    work: (span: SpanHandle) => Promise<T>,
    parent?: string | null,
  ): Promise<T>;
  /** The active span's context as a W3C `traceparent`, or null outside any sampled span. */
  traceparent(): string | null;
  /** Names the route of the HTTP server span of the request being served (`http.route`). */
  setHttpRoute(route: string): void;
  /** Exports what is pending (at shutdown). */
  flush(): Promise<void>;
}

let installed: Tracing | undefined;

/** Called once by tracing.ts when the SDK has started. */
export function installTracing(tracing: Tracing): void {
  installed = tracing;
}

export function tracingOn(): boolean {
  return installed !== undefined;
}

export function activeTraceparent(): string | null {
  return installed ? installed.traceparent() : null;
}

const NO_SPAN: SpanHandle = { setAttribute() {}, updateName() {}, fail() {} };

/** `work` in a span when tracing is on; otherwise just `work`. */
export function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: SpanHandle) => Promise<T>,
  parent?: string | null,
): Promise<T> {
  return installed ? installed.span(name, attributes, work, parent) : work(NO_SPAN);
}

/**
 * `work` in a span of the trace `parent` names (a W3C `traceparent` stored with background work, as
 * a bulk operation keeps its request's); just `work` when tracing is off or there is no `parent`:
 * work whose request was not traced starts no trace of its own (a bulk operation's million lines
 * would each be one).
 */
export function inSpanOf<T>(
  parent: string | null,
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  return installed && parent ? installed.span(name, attributes, work, parent) : work(NO_SPAN);
}

export function setHttpRoute(route: string): void {
  installed?.setHttpRoute(route);
}

/**
 * Exports the spans still pending, for at most `ms` (a collector that is away does not hold the
 * shutdown); nothing when tracing is off.
 */
export async function flushTracing(ms = 2000): Promise<void> {
  if (!installed) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([installed.flush().catch(() => undefined), late]);
  clearTimeout(timer);
}
