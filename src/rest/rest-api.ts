import {
  type GraphQLArgument,
  GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  isObjectType,
  parse,
  validate,
} from 'graphql';
import { type BodyValidator, bodyAjv, deriveBody } from './body.js';
import type { DerivedMap } from './fields.js';
import { deriveFilters, type FilterReader } from './filter-shapes.js';
import {
  exportDocument,
  feedDocument,
  getDocument,
  listDocument,
  mutationDocument,
  positionDocument,
} from './operations.js';
import { checkRenderings } from './record-rendering.js';
import { deriveRecordMap } from './records.js';
import { deriveSorts, type RestResource } from './resource.js';
import { checkRouteScope, checkRouteVersioning } from './route-checks.js';
import type { RouteSpec, WriteRoute } from './route-spec.js';

/**
 * The REST API as it runs: the route table completed from the GraphQL schema at start-up. A
 * resource declares only its REST names and presentations (src/rest/resources); here every record
 * map gets its JSON schema from the GraphQL object type it is read from, every body its validator
 * from the mutation's input type, every list its sort keys from the sort enum and every search its
 * filter keys and shapes from the filter input type. The router and the OpenAPI document run on
 * this, so neither holds a type, format, limit or whitelist of its own, and a field changed in
 * GraphQL changes the REST validation and documentation with it.
 */
export interface DerivedResource extends RestResource {
  fields: DerivedMap;
  expand: DerivedMap;
  /** Every key `sort` takes → the sort enum value it stands for (resource.ts `deriveSorts`). */
  sorts: Record<string, string>;
  /**
   * The description of the GraphQL object type its records are read from (the OpenAPI tag's, unless
   * openapi-prose.ts has one).
   */
  description?: string;
}

export type DerivedRoute = RouteSpec & {
  resource: DerivedResource;
  /** A `bodyArgs` write's arguments that its body fills, with their GraphQL types. */
  bodyArgTypes?: Record<string, string>;
  /** A write whose mutation answers a list of records (REST answers them as a JSON array). */
  answersList?: boolean;
};

export interface RestApi {
  routes: DerivedRoute[];
  /** The body validator of each write route that takes a body. */
  bodies: Map<RouteSpec, BodyValidator>;
  /** How each searchable resource reads its filters. */
  filters: Map<RestResource, FilterReader>;
}

const where = (route: RouteSpec) => `REST route ${route.method} ${route.path}`;

/** The arguments of a `bodyArgs` write that its body fills: all but those of the path and If-Match. */
function bodyArguments(schema: GraphQLSchema, route: WriteRoute): readonly GraphQLArgument[] {
  const field = schema.getMutationType()?.getFields()[route.operation];
  if (!field) throw new Error(`${where(route)}: the schema has no mutation ${route.operation}`);
  const taken = new Set<string>([...Object.values(route.pathArgs), ...(route.ifMatch ? [route.ifMatch] : [])]);
  return field.args.filter((arg) => !taken.has(arg.name));
}

/** Those arguments with their types as a document declares them (`changes` → `[InventoryChange!]!`). */
function bodyArgumentTypes(schema: GraphQLSchema, route: WriteRoute): Record<string, string> {
  return Object.fromEntries(bodyArguments(schema, route).map((arg) => [arg.name, String(arg.type)]));
}

/** Those arguments as the input object a body is derived from (deriveBody reads input types). */
function bodyArgumentsInput(schema: GraphQLSchema, route: WriteRoute): GraphQLInputObjectType {
  const args = bodyArguments(schema, route);
  return new GraphQLInputObjectType({
    name: `${route.operation}Arguments`,
    fields: () =>
      Object.fromEntries(
        args.map((arg) => [
          arg.name,
          { type: arg.type, defaultValue: arg.defaultValue, description: arg.description, extensions: arg.extensions },
        ]),
      ),
  });
}

/**
 * The widest operation a route can send: every key and every relation selected. A `bodyArgs`
 * write's variables are typed from the schema's arguments, so it needs the schema.
 */
export function widestOperation(route: RouteSpec, schema?: GraphQLSchema): string {
  const all = { keys: Object.keys(route.resource.fields), expand: Object.keys(route.resource.expand) };
  if (route.kind === 'feed') return feedDocument(route.resource, route.operation, all);
  if (route.kind === 'write' && route.bodyArgs && !schema)
    throw new Error(`${where(route)}: its operation's variables are typed from the schema`);
  return route.kind === 'list' || route.kind === 'search'
    ? listDocument(route.resource, route.operation, all, {
        filtered: route.kind === 'search',
        intArgs: Object.values(route.kind === 'list' ? (route.pathArgs ?? {}) : {}),
        optionalIntArgs: Object.values(route.kind === 'list' ? (route.queryArgs ?? {}) : {}),
      })
    : route.kind === 'export'
      ? exportDocument(route.resource, route.operation, all, { filtered: route.filtered })
      : route.kind === 'get'
        ? getDocument(route.resource, route.operation, all)
        : route.kind === 'position'
          ? positionDocument(route.resource, route.operation)
          : mutationDocument(route.resource, route.operation, all, {
              intArgs: Object.values(route.pathArgs),
              input: route.input,
              ifMatch: route.ifMatch,
              ...(route.bodyArgs && schema ? { bodyArgs: bodyArgumentTypes(schema, route) } : {}),
            });
}

/**
 * Proves at start-up that every route's widest operation is valid against the schema (every mapped
 * field, input type and sort key exists) and that its ETag and If-Match follow the schema's
 * versioned types (route-checks.ts), so a renamed GraphQL field fails the boot and the tests, not
 * a merchant's request.
 */
export function checkRoutesAgainstSchema(schema: GraphQLSchema, routes: RouteSpec[]): void {
  for (const route of routes) {
    const errors = validate(schema, parse(widestOperation(route, schema)));
    if (errors.length)
      throw new Error(`${where(route)} does not fit the schema: ${errors.map((e) => e.message).join('; ')}`);
    checkRouteVersioning(schema, route);
    if (route.kind === 'list' || route.kind === 'search') deriveSorts(schema, route.resource, where(route));
  }
}

/**
 * Every route's `scope` against the `@Authorized` of what its widest operation selects
 * (route-checks.ts). Read from type-graphql's metadata, so it runs on the store's schema as built
 * by buildStoreSchema, at start-up beside deriveRestApi.
 */
export function checkRouteScopes(schema: GraphQLSchema, routes: RouteSpec[]): void {
  for (const route of routes) checkRouteScope(schema, route, parse(widestOperation(route, schema)));
}

/** The GraphQL object type a route's records are read from (a list's page items); none for a position. */
function recordType(schema: GraphQLSchema, route: RouteSpec): GraphQLObjectType | undefined {
  if (route.kind === 'position') return undefined;
  const root = route.kind === 'write' ? schema.getMutationType() : schema.getQueryType();
  let type = getNamedType(root?.getFields()[route.operation]?.type);
  const listed = route.kind === 'list' || route.kind === 'search' || route.kind === 'feed' || route.kind === 'export';
  if (isObjectType(type) && listed) type = getNamedType(type.getFields().items?.type);
  if (!isObjectType(type))
    throw new Error(`${where(route)}: ${route.operation} does not answer ${route.resource.name} records`);
  return type;
}

function inputType(schema: GraphQLSchema, name: string | undefined, route: RouteSpec): GraphQLInputObjectType {
  const type = schema.getType(name ?? '');
  if (!isInputObjectType(type)) throw new Error(`${where(route)}: ${name} is not an input type of the schema`);
  return type;
}

/** A list body's element type: the list field `listBody` of the route's input. */
function elementType(input: GraphQLInputObjectType, field: string, route: RouteSpec): GraphQLInputObjectType {
  const list = getNullableType(input.getFields()[field]?.type);
  const element = isListType(list) ? getNamedType(list) : undefined;
  if (!isInputObjectType(element))
    throw new Error(`${where(route)}: ${input.name}.${field} is not a list of input objects`);
  return element;
}

export function deriveRestApi(schema: GraphQLSchema, routes: RouteSpec[]): RestApi {
  checkRoutesAgainstSchema(schema, routes);
  for (const route of routes) {
    if (route.kind !== 'write' || !route.location) continue;
    const read = routes.find((r) => r.kind === 'get' && r.path === route.location && r.resource === route.resource);
    if (!read || route.status !== 201)
      throw new Error(`${where(route)}: location ${route.location} is no GET of its ${route.resource.name} (on a 201)`);
  }
  const types = new Map<RestResource, GraphQLObjectType>();
  for (const route of routes) {
    const type = recordType(schema, route);
    const known = types.get(route.resource);
    if (type && known && known !== type)
      throw new Error(
        `${where(route)}: ${route.resource.name} is read from ${known.name} elsewhere, here from ${type.name}`,
      );
    if (type) types.set(route.resource, type);
  }
  const resources = new Map<RestResource, DerivedResource>();
  for (const [resource, type] of types) {
    const name = `REST resource ${resource.name}`;
    resources.set(resource, {
      ...resource,
      fields: deriveRecordMap(resource.fields, type, name),
      expand: deriveRecordMap(resource.expand, type, name),
      sorts: deriveSorts(schema, resource, name),
      ...(type.description ? { description: type.description } : {}),
    });
  }
  // Every record's keys as PostgreSQL writes them, or no start (record-rendering.ts).
  checkRenderings(resources.values());
  const ajv = bodyAjv(schema);
  const bodies = new Map<RouteSpec, BodyValidator>();
  const filters = new Map<RestResource, FilterReader>();
  const derived = routes.map((route): DerivedRoute => {
    const resource = resources.get(route.resource);
    if (!resource) throw new Error(`${where(route)}: no route reads ${route.resource.name} records`);
    const at = { ...route, resource } as DerivedRoute;
    if ((route.kind === 'search' || (route.kind === 'export' && route.filtered)) && !filters.has(resource)) {
      const input = route.resource.filterInput ? inputType(schema, route.resource.filterInput, route) : undefined;
      filters.set(resource, deriveFilters(route.resource, input, `REST resource ${resource.name}`));
    }
    if (route.kind === 'write') {
      const type = schema.getMutationType()?.getFields()[route.operation]?.type;
      if (type && isListType(getNullableType(type))) at.answersList = true;
      if (route.bodyArgs) at.bodyArgTypes = bodyArgumentTypes(schema, route);
    }
    if (route.kind === 'write' && route.body) {
      const input = route.bodyArgs ? bodyArgumentsInput(schema, route) : inputType(schema, route.input, route);
      bodies.set(
        at,
        deriveBody(
          ajv,
          route.body,
          route.listBody ? elementType(input, route.listBody, route) : input,
          Boolean(route.listBody),
          `${where(route)} body`,
        ),
      );
    }
    return at;
  });
  return { routes: derived, bodies, filters };
}
