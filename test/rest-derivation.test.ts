// Issue 15: REST holds no types of its own. The body validator, the filter reader, the record
// schemas and the OpenAPI document are derived from the GraphQL schema at start-up, so changing a
// field's type in a (fixture) schema changes what REST takes and documents, with nothing else edited.
import {
  GRAPHQL_MAX_INT,
  GRAPHQL_MIN_INT,
  GraphQLEnumType,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { buildStoreSchema } from '../src/graphql/build-schema.js';
import { checkBody, toInput } from '../src/rest/body.js';
import { field } from '../src/rest/fields.js';
import { toFilter } from '../src/rest/filters.js';
import type { JsonSchema } from '../src/rest/json-schema.js';
import { openApiDocument } from '../src/rest/openapi.js';
import { TAGS } from '../src/rest/openapi-prose.js';
import { reshapeRecord } from '../src/rest/operations.js';
import { Problem } from '../src/rest/problem.js';
import type { RestResource } from '../src/rest/resource.js';
import { deriveRestApi, type RestApi } from '../src/rest/rest-api.js';
import type { RouteSpec } from '../src/rest/route-spec.js';
import { routes as storeRoutes } from '../src/rest/routes.js';
import { OPTIONAL_EXTENSIONS } from '../src/schema/optional-field.js';
import { DecimalScalar } from '../src/schema/scalars/decimal.scalar.js';

/** What the Decimal scalar publishes about itself (src/schema/scalars/decimal.scalar.ts). */
const decimal = DecimalScalar.extensions as { jsonSchema: JsonSchema; jsonInputSchema: JsonSchema };
const nonNull = <T extends GraphQLInputType | GraphQLOutputType>(type: T) => new GraphQLNonNull(type);
const list = <T extends GraphQLInputType | GraphQLOutputType>(type: T) => new GraphQLList(nonNull(type));

/** `size` as a list of values (any of) or as a range input of them. */
const rangeOf = (type: GraphQLInputType & { name: string }) =>
  new GraphQLInputObjectType({
    name: `${type.name}Range`,
    fields: { eq: { type: list(type) }, gte: { type }, lte: { type } },
  });

interface Variant {
  /** Type of WidgetPatch.size, Widget.size and WidgetFilter.size. */
  input: GraphQLInputType;
  output: GraphQLOutputType;
  filter: GraphQLInputType;
  /** Type of WidgetPatch.code (the fixture's required field). */
  code?: GraphQLInputType;
  /** Values of WidgetSortField (what the list's declaration makes sortable). */
  sorts?: string[];
}

/** A widget store: one record type, a list with a filter, and an update mutation. */
function widgetSchema({ input, output, filter, code = nonNull(GraphQLInt), sorts = ['ID'] }: Variant): GraphQLSchema {
  const status = new GraphQLEnumType({ name: 'WidgetStatus', values: { DRAFT: { value: 0 }, LIVE: { value: 1 } } });
  const widget = new GraphQLObjectType({
    name: 'Widget',
    description: 'A widget of the fixture store',
    fields: {
      id: { type: nonNull(GraphQLInt) },
      label: { type: GraphQLString },
      size: { type: output },
      status: { type: nonNull(status) },
      price: { type: nonNull(DecimalScalar) },
    },
  });
  const page = new GraphQLObjectType({
    name: 'WidgetPage',
    fields: { totalCount: { type: nonNull(GraphQLInt) }, items: { type: nonNull(list(widget)) } },
  });
  const sort = new GraphQLInputObjectType({
    name: 'WidgetSort',
    fields: {
      field: {
        type: nonNull(
          new GraphQLEnumType({ name: 'WidgetSortField', values: Object.fromEntries(sorts.map((v) => [v, {}])) }),
        ),
      },
      direction: { type: GraphQLString },
    },
  });
  const widgetFilter = new GraphQLInputObjectType({
    name: 'WidgetFilter',
    fields: { label: { type: list(GraphQLString) }, size: { type: filter }, status: { type: list(status) } },
  });
  const patch = new GraphQLInputObjectType({
    name: 'WidgetPatch',
    fields: {
      label: { type: GraphQLString },
      size: { type: input },
      code: { type: code },
      tags: { type: list(GraphQLString), extensions: OPTIONAL_EXTENSIONS },
    },
  });
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        widgets: {
          type: nonNull(page),
          args: {
            page: { type: nonNull(GraphQLInt) },
            size: { type: nonNull(GraphQLInt) },
            sort: { type: list(sort) },
            filter: { type: widgetFilter },
          },
        },
      },
    }),
    mutation: new GraphQLObjectType({
      name: 'Mutation',
      fields: {
        updateWidget: {
          type: nonNull(widget),
          args: { id: { type: nonNull(GraphQLInt) }, input: { type: nonNull(patch) } },
        },
      },
    }),
  });
}

const widgetResource: RestResource = {
  name: 'Widget',
  sortInput: 'WidgetSort',
  filterInput: 'WidgetFilter',
  fields: {
    id: field(),
    label: field(),
    size: field(),
    status: field(),
    price: field.decimalNumber(),
  },
  expand: {},
};
const common = { resource: widgetResource, scope: 'read_products', summary: 'widgets' } as const;
const widgetRoutes: RouteSpec[] = [
  { ...common, kind: 'list', method: 'GET', path: '/widgets', operation: 'widgets' },
  { ...common, kind: 'search', method: 'POST', path: '/widgets/search', operation: 'widgets' },
  {
    ...common,
    kind: 'write',
    method: 'PATCH',
    path: '/widgets/{id}',
    operation: 'updateWidget',
    input: 'WidgetPatch',
    pathArgs: { id: 'id' },
    status: 200,
    body: { label: field(), size: field(), code: field(), tags: field() },
  },
];
const [, search, update] = widgetRoutes;

const apiOf = (variant: Variant) => deriveRestApi(widgetSchema(variant), widgetRoutes);
const intSize = { input: GraphQLInt, output: GraphQLInt, filter: list(GraphQLInt) };
const decimalSize = { input: DecimalScalar, output: DecimalScalar, filter: list(DecimalScalar) };
const stringSize = { input: GraphQLString, output: GraphQLString, filter: list(GraphQLString) };

const routeOf = (api: RestApi, route: RouteSpec) =>
  api.routes.find((r) => r.method === route.method && r.path === route.path)!;

/** The GraphQL input of a body, or the fields a 422 names. */
function write(api: RestApi, body: unknown): Record<string, unknown> | { refused: string[] } {
  const validator = api.bodies.get(routeOf(api, update))!;
  try {
    return toInput(validator.map, checkBody(validator, body).value as Record<string, unknown>);
  } catch (error) {
    if (!(error instanceof Problem) || error.status !== 422) throw error;
    return { refused: (error.errors ?? []).map((e) => e.field) };
  }
}

function filterOf(api: RestApi, body: unknown): Record<string, unknown> | { refused: string[] } {
  try {
    return toFilter(api.filters.get(routeOf(api, search).resource)!, body);
  } catch (error) {
    if (!(error instanceof Problem) || error.status !== 422) throw error;
    return { refused: (error.errors ?? []).map((e) => e.field) };
  }
}

type Document = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, JsonSchema> } };
const documentOf = (api: RestApi) => openApiDocument(api) as Document;
const bodySchema = (api: RestApi) =>
  documentOf(api).paths['/api/v1/widgets/{id}'].patch.requestBody.content['application/json'].schema;
const filterSchema = (api: RestApi) =>
  documentOf(api).paths['/api/v1/widgets/search'].post.requestBody.content['application/json'].schema;

describe('a body follows the type of its GraphQL input field', () => {
  it('an Int: 32-bit integers only, documented as such', () => {
    const api = apiOf(intSize);
    expect(write(api, { code: 1, size: 7 })).toEqual({ code: 1, size: 7 });
    expect(write(api, { code: 1, size: '7' })).toEqual({ refused: ['size'] });
    expect(write(api, { code: 1, size: 2 ** 31 })).toEqual({ refused: ['size'] });
    expect(write(api, { code: 1, size: 1.5 })).toEqual({ refused: ['size'] });
    expect(bodySchema(api).properties.size).toEqual({
      type: ['integer', 'null'],
      minimum: GRAPHQL_MIN_INT,
      maximum: GRAPHQL_MAX_INT,
    });
  });

  it('the same field as a Decimal: amounts, checked by the Decimal scalar itself, documented with its pattern', () => {
    const api = apiOf(decimalSize);
    expect(write(api, { code: 1, size: '12.50' })).toEqual({ code: 1, size: '12.50' });
    expect(write(api, { code: 1, size: 12.5 })).toEqual({ code: 1, size: 12.5 });
    for (const size of [1.234, 'abc', '12345678901', ' 1'])
      expect(write(api, { code: 1, size })).toEqual({ refused: ['size'] });
    expect(bodySchema(api).properties.size).toMatchObject({
      type: ['number', 'string', 'null'],
      pattern: decimal.jsonInputSchema.pattern,
    });
  });

  it('the same field as a String: text only', () => {
    const api = apiOf(stringSize);
    expect(write(api, { code: 1, size: 'large' })).toEqual({ code: 1, size: 'large' });
    expect(write(api, { code: 1, size: 7 })).toEqual({ refused: ['size'] });
    expect(bodySchema(api).properties.size).toEqual({ type: ['string', 'null'] });
  });

  it('required, nullable and @Optional come from the input type', () => {
    const api = apiOf(intSize);
    expect(write(api, { size: 1 })).toEqual({ refused: ['code'] });
    expect(write(api, { code: 1, label: null })).toEqual({ code: 1, label: null });
    expect(write(api, { code: 1, tags: null })).toEqual({ refused: ['tags'] });
    expect(write(api, { code: 1, colour: 'red' })).toEqual({ refused: ['colour'] });
    expect(bodySchema(api)).toMatchObject({
      required: ['code'],
      properties: { label: { type: ['string', 'null'] }, tags: { type: 'array' } },
    });
    // `code` made optional in GraphQL: REST stops requiring it, in the validator and the document.
    const relaxed = apiOf({ ...intSize, code: GraphQLInt });
    expect(write(relaxed, { size: 1 })).toEqual({ size: 1 });
    expect(bodySchema(relaxed).required).toBeUndefined();
  });
});

describe('records and filters follow the GraphQL types too', () => {
  it('the record schema is the output type; an enum of integer codes is shown as its codes', () => {
    expect(documentOf(apiOf(intSize)).components.schemas.Widget.properties).toMatchObject({
      size: { type: ['integer', 'null'] },
      status: { type: 'integer', enum: [0, 1] },
      price: { type: 'number' },
    });
    expect(documentOf(apiOf(decimalSize)).components.schemas.Widget.properties.size).toEqual({
      type: ['string', 'null'],
      pattern: decimal.jsonSchema.pattern,
    });
    const api = apiOf(intSize);
    const record = reshapeRecord(
      routeOf(api, update).resource,
      { keys: ['id', 'status', 'price'], expand: [] },
      { id: 1, status: 'LIVE', price: '2.50' },
    );
    expect(record).toEqual({ id: 1, status: 1, price: 2.5 });
  });

  it('a filter takes what its filter field takes: a list of values, or a range of them', () => {
    const listed = apiOf(intSize);
    expect(filterOf(listed, { size: [1, 2], status: 1 })).toEqual({ size: [1, 2], status: ['LIVE'] });
    expect(filterOf(listed, { size: { gte: 1 } })).toEqual({ refused: ['size'] });
    expect(filterOf(listed, { size: 2 ** 31 })).toEqual({ refused: ['size'] });
    expect(filterOf(listed, { status: [7] })).toEqual({ refused: ['status'] });
    expect(filterSchema(listed).properties.size.anyOf).toHaveLength(2);

    const ranged = apiOf({ ...intSize, filter: rangeOf(GraphQLInt) });
    expect(filterOf(ranged, { size: { gte: 1 } })).toEqual({ size: { gte: 1 } });
    expect(filterOf(ranged, { size: 3 })).toEqual({ size: { eq: [3] } });
    expect(filterSchema(ranged).properties.size.anyOf).toHaveLength(3);

    const amounts = apiOf({ ...decimalSize, filter: rangeOf(DecimalScalar) });
    expect(filterOf(amounts, { size: { lte: '9.99' } })).toEqual({ size: { lte: '9.99' } });
    expect(filterOf(amounts, { size: 0.001 })).toEqual({ refused: ['size'] });
  });
});

describe('sorts and filters follow the list declaration, through the sort enum and the filter input', () => {
  const withResource = (resource: RestResource) => widgetRoutes.map((r) => ({ ...r, resource })) as RouteSpec[];
  const sortsOf = (api: RestApi) => routeOf(api, widgetRoutes[0]).resource.sorts;
  const sortDocs = (api: RestApi) =>
    documentOf(api).paths['/api/v1/widgets'].get.parameters.find((p: { name: string }) => p.name === 'sort')
      .description;

  it('REST sorts by every value of the enum: record keys in their order, the others after, snake_cased', () => {
    const api = apiOf({ ...intSize, sorts: ['PRICE_CENTS', 'LABEL', 'ID'] });
    expect(sortsOf(api)).toEqual({ id: 'ID', label: 'LABEL', price_cents: 'PRICE_CENTS' });
    expect(Object.keys(sortsOf(api))).toEqual(['id', 'label', 'price_cents']);
    expect(sortDocs(api)).toMatch(/Sortable: id, label, price_cents$/);
    const named = deriveRestApi(
      widgetSchema({ ...intSize, sorts: ['ID', 'PRICE_CENTS'] }),
      withResource({ ...widgetResource, sortNames: { priceCents: 'price.cents' } }),
    );
    expect(sortsOf(named)).toEqual({ id: 'ID', 'price.cents': 'PRICE_CENTS' });
    expect(() =>
      deriveRestApi(
        widgetSchema(intSize),
        withResource({ ...widgetResource, sortNames: { priceCents: 'price.cents' } }),
      ),
    ).toThrow(/sortNames: WidgetSort sorts by no priceCents/);
  });

  it('REST searches by every field of the filter input, named and documented as the resource says', () => {
    expect(Object.keys(filterSchema(apiOf(intSize)).properties)).toEqual(['label', 'size', 'status']);
    const api = deriveRestApi(
      widgetSchema(intSize),
      withResource({
        ...widgetResource,
        filterNames: { label: null, status: 'state' },
        filterDescriptions: { state: '0 draft; 1 live' },
      }),
    );
    expect(Object.keys(filterSchema(api).properties)).toEqual(['size', 'state']);
    expect(filterSchema(api).properties.state.description).toBe('0 draft; 1 live');
    expect(filterOf(api, { state: 1, size: 2 })).toEqual({ status: ['LIVE'], size: [2] });
    expect(filterOf(api, { label: 'x' })).toEqual({ refused: ['label'] });
  });
});

describe('the OpenAPI tags', () => {
  it(
    'a resource without prose in openapi-prose.ts is tagged with its GraphQL type’s description; ' +
      'the store’s prose stays',
    async () => {
      expect((documentOf(apiOf(intSize)) as unknown as { tags: unknown[] }).tags).toEqual([
        { name: 'Widget', description: 'A widget of the fixture store' },
        expect.objectContaining({ name: 'Webhooks' }),
        expect.objectContaining({ name: 'Operations' }),
      ]);
      const store = openApiDocument(deriveRestApi(await buildStoreSchema(), storeRoutes)) as unknown as {
        tags: { name: string; description: string }[];
      };
      expect(store.tags).toEqual(expect.arrayContaining(TAGS));
    },
  );
});

describe('a REST map that does not fit the schema fails the start', () => {
  const withBody = (body: Record<string, ReturnType<typeof field>>) =>
    widgetRoutes.map((r) => (r === update ? { ...update, body } : r)) as RouteSpec[];

  it('names a body key the input type lacks, and a required input field no key fills', () => {
    expect(() => deriveRestApi(widgetSchema(intSize), withBody({ code: field(), colour: field() }))).toThrow(
      /body\.colour: WidgetPatch has no field colour/,
    );
    expect(() => deriveRestApi(widgetSchema(intSize), withBody({ size: field() }))).toThrow(
      /WidgetPatch\.code is required but no REST key fills it/,
    );
  });

  it('names a record key or filter the GraphQL types lack', () => {
    const extra = { ...widgetResource, fields: { ...widgetResource.fields, weight: field() } };
    expect(() =>
      deriveRestApi(widgetSchema(intSize), widgetRoutes.map((r) => ({ ...r, resource: extra })) as RouteSpec[]),
    ).toThrow(/weight/);
    const badFilter = { ...widgetResource, filterNames: { weight: 'weight' } };
    expect(() =>
      deriveRestApi(widgetSchema(intSize), widgetRoutes.map((r) => ({ ...r, resource: badFilter })) as RouteSpec[]),
    ).toThrow(/WidgetFilter has no field weight/);
  });

  it('names a record key converted in JS only (`out` without `shown`): no list falls silently to execution', () => {
    const label = field({ out: (v: string | null) => v?.toUpperCase() ?? null });
    const jsOnly = { ...widgetResource, fields: { ...widgetResource.fields, label } };
    expect(() =>
      deriveRestApi(widgetSchema(intSize), widgetRoutes.map((r) => ({ ...r, resource: jsOnly })) as RouteSpec[]),
    ).toThrow('Widget: REST key label converts its value with `out` but declares no SQL form (`shown`)');
    const withSql = { ...widgetResource, fields: { ...widgetResource.fields, status: field({ shown: 'code' }) } };
    expect(() =>
      deriveRestApi(widgetSchema(intSize), widgetRoutes.map((r) => ({ ...r, resource: withSql })) as RouteSpec[]),
    ).not.toThrow();
  });
});

describe('the store', () => {
  /** Every leaf of a JSON schema has a type (or is a declared free-form object): nothing untyped slipped through. */
  const untyped = (schema: JsonSchema, path: string, out: string[]): string[] => {
    if (schema.anyOf) {
      schema.anyOf.forEach((s: JsonSchema, i: number) => {
        untyped(s, `${path}|${i}`, out);
      });
    } else if (schema.type === undefined) out.push(path);
    for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>))
      untyped(sub, `${path}.${key}`, out);
    if (schema.items) untyped(schema.items, `${path}[]`, out);
    return out;
  };

  it('every body, filter and record of the route table is typed from the schema', async () => {
    const api = deriveRestApi(await buildStoreSchema(), storeRoutes);
    const gaps: string[] = [];
    for (const route of api.routes) {
      const body = api.bodies.get(route);
      if (route.kind === 'write' && route.body) expect(body).toBeDefined();
      if (body) untyped(body.schema, `${route.method} ${route.path} body`, gaps);
      if (route.kind === 'search') untyped(api.filters.get(route.resource)!.schema, `${route.path} filters`, gaps);
      for (const [key, spec] of Object.entries({ ...route.resource.fields, ...route.resource.expand }))
        untyped(spec.schema, `${route.resource.name}.${key}`, gaps);
    }
    expect(gaps).toEqual([]);
  });
});
