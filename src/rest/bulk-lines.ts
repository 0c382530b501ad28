import { parse as parseQuery } from 'node:querystring';
import type { Context } from 'koa';
import type { Session } from '../graphql/gateway.js';
import { Problem } from './problem.js';
import { bodyTooLarge, checkedBody, MAX_BODY_BYTES } from './request-input.js';
import { MAX_QUERY, requireScope } from './request-session.js';
import type { DerivedRoute, RestApi } from './rest-api.js';
import type { WriteRoute } from './route-spec.js';
import { API_PREFIX, methodsByPath, type RestOptions } from './router.js';
import { renderProblem, type WriteContext, write } from './write-handler.js';

/**
 * The lines of a REST bulk operation (docs/decisions.md#bulk-writes): each names one `/api/v1`
 * write, and runs through what its single request runs through, with no HTTP in between: the
 * route table, the route's scope, the body's input limits and schema, If-Match, the mutation and
 * its domain code (`write` in write-handler.ts, the very function a request calls). What differs is only
 * what a bulk operation holds for all its lines: the token was checked and charged once, when the
 * operation was made, and the line runs in the runner's transaction (src/bulk/runner.ts), which
 * keeps the line's result with its effects.
 */

/** One line of the file, as its upload checked it (`lineProblem`). */
export interface RestLine {
  method: 'POST' | 'PATCH' | 'DELETE';
  /** Under /api/v1 (`/orders/7/fulfilments`; the prefix may be written too), with any query string. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What the line's single request would have answered: its status, body and ETag. */
export interface LineAnswer {
  status: number;
  body: unknown;
  etag?: string;
}

const LINE_KEYS = new Set(['method', 'path', 'body', 'headers']);
const METHODS = new Set(['POST', 'PATCH', 'DELETE']);
/** The request headers a write reads (a line runs exactly once, so it has no Idempotency-Key). */
const LINE_HEADERS = new Set(['if-match']);
/** Routes under this path are bulk operations' own: a line may not start, cancel or read one. */
const BULK_PATH = '/bulk-operations';

type LineRoute = WriteRoute & DerivedRoute;

interface Pattern {
  route: DerivedRoute;
  regexp: RegExp;
  names: string[];
}

/** What a write reads of a line (its path parameters, query and headers) and the answer it writes. */
class LineContext implements WriteContext {
  status = 404;
  body: unknown = undefined;
  type = '';
  readonly answerHeaders: Record<string, string> = {};

  constructor(
    readonly params: Record<string, string>,
    readonly query: Context['query'],
    private readonly headers: Record<string, string>,
  ) {}

  get(field: string): string {
    return this.headers[field.toLowerCase()] ?? '';
  }

  set(field: string | Record<string, string | string[]>, value?: string | string[]): void {
    const fields = typeof field === 'string' ? { [field]: value ?? '' } : field;
    for (const [name, given] of Object.entries(fields)) this.answerHeaders[name] = String(given);
  }
}

/**
 * The write routes of the table as patterns (`/orders/{id}/fulfilments`), matched as the router
 * matches them: exact, case-sensitive, path parameters URI-decoded.
 */
export class RestLines {
  private readonly patterns: Pattern[];
  /** The table's paths without parameters (and the bulk streams'). */
  private readonly literals: Set<string>;

  constructor(private readonly options: Pick<RestOptions, 'api'>) {
    this.literals = new Set([...methodsByPath(options.api).keys()].filter((path) => !path.includes('{')));
    this.patterns = options.api.routes.map((route) => {
      const names: string[] = [];
      const source = route.path
        .split(/(\{\w+\})/)
        .map((part) => {
          const name = /^\{(\w+)\}$/.exec(part)?.[1];
          if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          names.push(name);
          return '([^/]+)';
        })
        .join('');
      return { route, regexp: new RegExp(`^${source}$`), names };
    });
  }

  /** The route table the lines are held to. */
  get api(): RestApi {
    return this.options.api;
  }

  private split(path: string): { pathname: string; search: string } {
    const at = path.indexOf('?');
    const full = at < 0 ? path : path.slice(0, at);
    const pathname = full.startsWith(`${API_PREFIX}/`) ? full.slice(API_PREFIX.length) : full;
    return { pathname, search: at < 0 ? '' : path.slice(at + 1) };
  }

  /**
   * The write route of `method` at `pathname` and its parameters, or undefined. A path of the table
   * without parameters (`/orders/search`) is that path only, as for the router: never an `{id}`.
   */
  private match(method: string, pathname: string): { route: LineRoute; params: Record<string, string> } | undefined {
    const literal = this.literals.has(pathname);
    for (const { route, regexp, names } of this.patterns) {
      if (route.method !== method || route.kind !== 'write' || route.path.startsWith(BULK_PATH)) continue;
      if (literal && route.path !== pathname) continue;
      const found = regexp.exec(pathname);
      if (!found) continue;
      const params: Record<string, string> = {};
      try {
        names.forEach((name, i) => {
          params[name] = decodeURIComponent(found[i + 1]);
        });
      } catch {
        continue; // a malformed escape matches no route (the router's answer too)
      }
      return { route: route as LineRoute, params };
    }
    return undefined;
  }

  /**
   * Why a line of an upload cannot be a line of a REST bulk operation (its upload is then refused
   * with a 400 naming the line), or undefined: a JSON object with `method` (POST, PATCH or DELETE)
   * and `path` naming a write route of /api/v1 other than the bulk operations' own, an optional
   * `body` (an object or array, as a request body is) and optional `headers` (`If-Match`).
   */
  lineProblem(value: unknown): string | undefined {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'is not a JSON object';
    const line = value as Record<string, unknown>;
    const unknown = Object.keys(line).filter((key) => !LINE_KEYS.has(key));
    if (unknown.length) return `has unknown keys ${unknown.join(', ')} (a line has method, path, body, headers)`;
    if (typeof line.method !== 'string' || !METHODS.has(line.method)) return 'needs a method: POST, PATCH or DELETE';
    if (typeof line.path !== 'string' || !line.path.startsWith('/')) return 'needs a path starting with /';
    const { pathname, search } = this.split(line.path);
    if (search.length > MAX_QUERY) return `has a query string longer than ${MAX_QUERY} characters`;
    if (!this.match(line.method, pathname))
      return `names no write route ${line.method} ${pathname} (bulk operations' own routes excepted)`;
    if ('body' in line && (line.body === null || typeof line.body !== 'object'))
      return 'has a body that is not a JSON object or array';
    if ('headers' in line) {
      const headers = line.headers;
      if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
        return 'has headers that are not an object';
      for (const [name, given] of Object.entries(headers)) {
        if (!LINE_HEADERS.has(name.toLowerCase())) return `has the header ${name}: a line takes only If-Match`;
        if (typeof given !== 'string') return `has a header ${name} that is not a string`;
      }
    }
    return undefined;
  }

  /**
   * What the line's request would have answered, run as `session` (the operation's token, inside
   * the runner's transaction): a refusal is its problem+json answer. An error that is not a refusal
   * (a bug, the database gone) is thrown, for the runner to decide.
   */
  async answer(session: Pick<Session, 'scopes' | 'run'>, line: RestLine): Promise<LineAnswer> {
    const { pathname, search } = this.split(line.path);
    const matched = this.match(line.method, pathname);
    const headers = Object.fromEntries(Object.entries(line.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const ctx = new LineContext(matched?.params ?? {}, parseQuery(search), headers);
    try {
      if (!matched) throw new Problem(404, `No route ${line.method} ${pathname}`);
      requireScope(session, matched.route);
      // The body parser's bound on a single request's body, on the line's as sent (compact JSON).
      if (matched.route.body && Buffer.byteLength(JSON.stringify(line.body ?? null)) > MAX_BODY_BYTES)
        throw bodyTooLarge();
      const body = matched.route.body ? checkedBody(line.body) : null;
      await write(ctx, matched.route, this.options, session, body);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      renderProblem(ctx, error);
    }
    const etag = ctx.answerHeaders.ETag;
    return { status: ctx.status, body: ctx.body, ...(etag ? { etag } : {}) };
  }
}
