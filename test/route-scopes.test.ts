// Issue 15 "Route scopes checked": a route's `scope` (what REST checks before reading the body) is
// held to the resolvers' @Authorized (what GraphQL enforces) for every route, at start-up and here;
// so are its ETag (`versioned`) and its If-Match mapping to the schema's versioned types.
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { buildStoreSchema } from '../src/graphql/build-schema.js';
import { checkRouteScopes, checkRoutesAgainstSchema } from '../src/rest/rest-api.js';
import { type RouteSpec, routeScopes } from '../src/rest/route-spec.js';
import { routes } from '../src/rest/routes.js';
import { fieldScopes } from '../src/schema/field-scopes.js';
import { startTestService, type TestService } from './support/harness.js';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildStoreSchema();
});
const find = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;
const rootOf = (route: RouteSpec) =>
  (route.kind === 'write' ? schema.getMutationType() : schema.getQueryType()) as GraphQLObjectType;

it('every route of the table declares exactly the scope its GraphQL field asks for', () => {
  expect(routes.length).toBeGreaterThan(30);
  const mismatches = routes
    .map((route) => ({
      route: `${route.method} ${route.path}`,
      scopes: routeScopes(route),
      authorized: fieldScopes(schema, rootOf(route), route.operation),
    }))
    .filter(
      ({ scopes, authorized }) => authorized?.length !== scopes.length || scopes.some((s) => !authorized.includes(s)),
    );
  expect(mismatches).toEqual([]);
  expect(() => checkRoutesAgainstSchema(schema, routes)).not.toThrow();
  expect(() => checkRouteScopes(schema, routes)).not.toThrow();
});

it('reads scopes from the metadata the auth checker runs on, nested fields included', () => {
  expect(fieldScopes(schema, schema.getQueryType()!, 'orders')).toEqual(['read_orders']);
  expect(fieldScopes(schema, schema.getMutationType()!, 'createImage')).toEqual([
    'write_products',
    'write_collections',
  ]);
  expect(fieldScopes(schema, schema.getType('Collection') as GraphQLObjectType, 'products')).toEqual(['read_products']);
  expect(fieldScopes(schema, schema.getType('Product') as GraphQLObjectType, 'title')).toBeUndefined();
});

describe('a route that disagrees with the schema fails the start-up check, saying how', () => {
  const failure = (route: RouteSpec) => {
    try {
      checkRoutesAgainstSchema(schema, [route]);
      checkRouteScopes(schema, [route]);
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  };

  it('another scope than the resolver’s', () => {
    expect(failure({ ...find('GET', '/orders'), scope: 'read_customers' })).toBe(
      "REST route GET /orders: the table says scope read_customers, but Query.orders has @Authorized('read_orders')",
    );
    expect(failure({ ...find('PATCH', '/orders/{id}/shipments'), scope: 'read_orders' })).toBe(
      'REST route PATCH /orders/{id}/shipments: the table says scope read_orders, ' +
        "but Mutation.updateShipments has @Authorized('write_orders')",
    );
  });

  it('a selected field that asks for a scope the route does not hold', () => {
    const route = find('GET', '/products/{id}');
    // A relation that would expose whole collections (Product.collections needs read_collections).
    const resource = {
      ...route.resource,
      expand: {
        ...route.resource.expand,
        whole_collections: { gql: 'collections', sub: { id: { schema: {} } }, schema: {} },
      },
    };
    expect(failure({ ...route, resource })).toBe(
      'REST route GET /products/{id}: it selects Product.collections, ' +
        "which has @Authorized('read_collections'): a token holding only read_products would be refused",
    );
  });

  it('a versioned type shown without its ETag, or under another type’s name', () => {
    const customer = find('GET', '/customers/{id}');
    expect(failure({ ...customer, resource: { ...customer.resource, versioned: undefined } })).toBe(
      'REST route GET /customers/{id}: customer answers Customer, which has a version field, ' +
        "but its resource Customer says versioned: (none) (say versioned: 'Customer')",
    );
    const order = find('GET', '/orders/{id}');
    expect(failure({ ...order, resource: { ...order.resource, versioned: 'Product' } })).toBe(
      'REST route GET /orders/{id}: order answers Order, which has a version field, ' +
        "but its resource Order says versioned: Product (say versioned: 'Order')",
    );
  });

  it('a mutation taking expectedVersion without If-Match mapped onto it', () => {
    const { ifMatch: _dropped, ...route } = find('PATCH', '/products/{id}') as Extract<RouteSpec, { kind: 'write' }>;
    expect(failure(route as RouteSpec)).toBe(
      'REST route PATCH /products/{id}: updateProduct takes expectedVersion, ' +
        "but the route maps no If-Match onto it (add ifMatch: 'expectedVersion')",
    );
  });
});

describe('over HTTP', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  /**
   * Ids in the paths of the read routes: the first record of the list route of the path's collection
   * (`/orders/{id}/…` → `GET /orders`), read with the harness's all-scopes token. None when that
   * list is empty (a table the demo store has no rows for).
   */
  async function pathOf(route: RouteSpec): Promise<{ path: string; found: boolean }> {
    if (!route.path.includes('{id}')) return { path: route.path, found: true };
    const collection = `/${route.path.split('/')[1]}`;
    expect(routes.some((r) => r.kind === 'list' && r.method === 'GET' && r.path === collection)).toBe(true);
    const page = await service.get(`/api/v1${collection}?size=1`);
    expect(page.status).toBe(200);
    const [first] = page.body.items as { id: number }[];
    return { path: route.path.replace('{id}', String(first?.id ?? 1)), found: Boolean(first) };
  }

  it('a token holding only a read route’s scope reads it; one holding every other scope is refused', async () => {
    const reads = routes.filter((r) => r.method === 'GET');
    expect(reads.length).toBeGreaterThan(10);
    const scopes = [...new Set(routes.flatMap((r) => routeScopes(r)))];
    const only = new Map(await Promise.all(scopes.map(async (s) => [s, await service.tokenWith([s])] as const)));
    for (const route of reads) {
      const { path: routePath, found } = await pathOf(route);
      const path = `/api/v1${routePath}`;
      // A route naming several scopes admits each of them alone, and refuses a token holding none.
      const anyOf = routeScopes(route);
      for (const scope of anyOf) {
        const allowed = await service.get(path, only.get(scope));
        // Past the scope check: the record, or a 404 problem when its collection is empty.
        expect({ path, scope, status: allowed.status }).toEqual({ path, scope, status: found ? 200 : 404 });
      }
      const refused = await service.get(path, await service.tokenWith(scopes.filter((o) => !anyOf.includes(o))));
      const lacks = `This token lacks the scope ${anyOf.join(' or ')}`;
      const answer = { path, status: refused.status, detail: refused.body.detail };
      expect(answer).toEqual({ path, status: 403, detail: lacks });
    }
  });
});
