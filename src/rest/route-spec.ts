import type { FieldMap } from './fields.js';
import type { RestResource } from './resource.js';

/** What a route of /api/v1 is, as data: src/rest/routes.ts lists them, the router runs them. */
interface RouteBase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /api/v1, OpenAPI style (`/products/{id}`). */
  path: string;
  resource: RestResource;
  /** The GraphQL root field the route runs. */
  operation: string;
  /**
   * Scope checked before the body is read (403); the start-up check holds it equal to the
   * resolver's @Authorized, which GraphQL enforces (route-checks.ts). A list: any one of them admits.
   */
  scope: string | readonly string[];
  summary: string;
  /** Set on routes that are not in the spec but decided (docs/decisions.md#extensions-beyond-the-spec). */
  extension?: true;
}

/** A paginated list: `page`, `size`, `sort`, `fields`, `expand` → the list wrapper. */
export interface ListRoute extends RouteBase {
  kind: 'list';
  /** Path parameters passed as GraphQL Int arguments: `{ id: 'orderId' }`. */
  pathArgs?: Record<string, string>;
  /**
   * Query parameters that narrow the list, each an optional GraphQL Int argument:
   * `{ variant_id: 'variantId' }`. A value that is not a positive integer is a 400 naming it.
   */
  queryArgs?: Record<string, string>;
}

/** A list narrowed by the filters in the body; answers the wrapper, or a bare array (`bare`). */
export interface SearchRoute extends RouteBase {
  kind: 'search';
  bare?: boolean;
  /** The filter key the path's `{id}` is added to (`POST /orders/{id}/search`). */
  idFilter?: string;
}

/**
 * Every record of a list, streamed as NDJSON in id order from one snapshot (docs/rest.md#exports):
 * `fields`, `expand`; with `filtered`, a POST whose body is the resource's search body.
 */
export interface ExportRoute extends RouteBase {
  kind: 'export';
  filtered?: true;
}

/** Where one record lies in the list: `sort`, `size` → `{ "page": N }`. */
export interface PositionRoute extends RouteBase {
  kind: 'position';
}

/** One record by id: `fields`, `expand` → the record. */
export interface GetRoute extends RouteBase {
  kind: 'get';
}

/** A write: the body (checked against `body`) becomes the mutation's `input`; answers the record. */
export interface WriteRoute extends RouteBase {
  kind: 'write';
  /** The body's fields; omitted for writes without a body. */
  body?: FieldMap;
  /** The body is a JSON array of `body` objects, given to the input field of this name. */
  listBody?: string;
  /** GraphQL input type of `body`. */
  input?: string;
  /**
   * The body's keys are the mutation's own arguments (`adjustInventory(changes:, reason:,
   * reference:)`) rather than one `input`: its validator and the operation's variables are derived
   * from those arguments (src/rest/rest-api.ts).
   */
  bodyArgs?: true;
  /**
   * A write whose body carries its own precondition (not If-Match): what its 412 means, for the
   * API docs.
   */
  precondition?: string;
  /** Path parameters passed as GraphQL Int arguments: `{ id: 'orderId', fulfilmentId: 'fulfilmentId' }`. */
  pathArgs: Record<string, string>;
  /**
   * The mutation argument `If-Match` is passed as (the versions its ETags name; `*` passes none):
   * the use case compares it with the record's version under the row lock, 412 when stale. Writes
   * under an order guard the order. The start-up check holds it to the schema both ways: a
   * mutation taking `expectedVersion` must be given it.
   */
  ifMatch?: 'expectedVersion';
  /** 201 for a POST that creates. */
  status: 200 | 201;
  /**
   * A 201's `Location`: the path of the table where the record made is read, its `{id}` the
   * answer's id (`/collections/{id}`). The start-up check holds it to a GET route of the table.
   */
  location?: string;
}

/**
 * A cursor feed: `after`, `size`, `types`, `fields` → the events after the cursor in the list
 * wrapper, `_links.next` carrying the next cursor (docs/decisions.md#event-feed).
 */
export interface FeedRoute extends RouteBase {
  kind: 'feed';
}

export type RouteSpec = ListRoute | SearchRoute | ExportRoute | GetRoute | PositionRoute | WriteRoute | FeedRoute;

/** The scopes a route admits (any one of them). */
export function routeScopes(route: Pick<RouteSpec, 'scope'>): readonly string[] {
  return typeof route.scope === 'string' ? [route.scope] : route.scope;
}
