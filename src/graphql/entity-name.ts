import type { GraphQLObjectType } from 'graphql';

/**
 * The entity a GraphQL object type is read from: the class of the same name, or the one its class
 * declares with `@Extensions({ entity })` where the names differ (`Event` is read from `StoreEvent`,
 * since Node has an `Event` of its own).
 */
export const entityNameOf = (type: GraphQLObjectType): string =>
  typeof type.extensions?.entity === 'string' ? type.extensions.entity : type.name;
