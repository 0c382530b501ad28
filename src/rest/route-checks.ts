import {
  type DocumentNode,
  type GraphQLSchema,
  getNamedType,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { fieldScopes } from '../schema/field-scopes.js';
import { type RouteSpec, routeScopes } from './route-spec.js';

/*
 * What a route declares besides its fields, held to the schema at start-up (rest-api.ts
 * checkRoutesAgainstSchema and checkRouteScopes): the table is data, and data that disagrees with the resolvers would
 * otherwise only show in a merchant's request.
 */

const nameOf = (route: RouteSpec) => `REST route ${route.method} ${route.path}`;

const shown = (scopes: readonly string[] | undefined) =>
  scopes ? `@Authorized(${scopes.map((s) => `'${s}'`).join(', ')})` : 'no @Authorized';

/**
 * REST checks the route's `scope` before it reads the body (a 403 whatever was sent); the
 * resolvers' `@Authorized` is what GraphQL enforces. They must agree, or a token is refused by one
 * edge and admitted by the other: the root field must ask for exactly the route's scope, and every
 * field the route's widest operation selects (`document`) that asks for scopes must accept it.
 */
export function checkRouteScope(schema: GraphQLSchema, route: RouteSpec, document: DocumentNode): void {
  const typeInfo = new TypeInfo(schema);
  const roots = new Set([schema.getQueryType(), schema.getMutationType()]);
  const problems: string[] = [];
  const wanted = routeScopes(route);
  const named = wanted.join(' or ');
  const same = (scopes: readonly string[] | undefined) =>
    scopes?.length === wanted.length && wanted.every((s) => scopes.includes(s));
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (!parent) return;
        const field = `${parent.name}.${node.name.value}`;
        const scopes = fieldScopes(schema, parent, node.name.value);
        if (roots.has(parent as never)) {
          if (!same(scopes)) problems.push(`the table says scope ${named}, but ${field} has ${shown(scopes)}`);
        } else if (scopes && !wanted.every((s) => scopes.includes(s))) {
          problems.push(
            `it selects ${field}, which has ${shown(scopes)}: a token holding only ${named} would be refused`,
          );
        }
      },
    }),
  );
  if (problems.length) throw new Error(`${nameOf(route)}: ${problems.join('; ')}`);
}

/**
 * The schema is the list of versioned types (those with a `version` field, see
 * schema/expected-version.arg.ts). A single read or write of one shows its ETag, so its resource
 * must name that type in `versioned`; a mutation taking `expectedVersion` must have If-Match
 * mapped onto it (`ifMatch`), or REST would silently drop a client's precondition.
 */
export function checkRouteVersioning(schema: GraphQLSchema, route: RouteSpec): void {
  if (route.kind !== 'get' && route.kind !== 'write') return;
  const root = route.kind === 'get' ? schema.getQueryType() : schema.getMutationType();
  const field = root?.getFields()[route.operation];
  if (!field) return; // the operation's validation names it
  const type = getNamedType(field.type);
  const version = isObjectType(type) ? type.getFields().version : undefined;
  const declared = route.resource.versioned;
  if (version ? declared !== type.name : declared !== undefined) {
    throw new Error(
      `${nameOf(route)}: ${route.operation} answers ${type.name}, which has ${version ? 'a' : 'no'} version field, ` +
        `but its resource ${route.resource.name} says versioned: ` +
        `${declared ?? '(none)'}${version ? ` (say versioned: '${type.name}')` : ''}`,
    );
  }
  // The other way round (ifMatch naming an argument the mutation lacks) fails the operation's validation.
  if (route.kind === 'write' && !route.ifMatch && field.args.some((arg) => arg.name === 'expectedVersion')) {
    throw new Error(
      `${nameOf(route)}: ${route.operation} takes expectedVersion, but the ` +
        `route maps no If-Match onto it (add ifMatch: 'expectedVersion')`,
    );
  }
}
