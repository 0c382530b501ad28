import type { GraphQLCompositeType, GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

/**
 * The scopes `@Authorized(...)` asks for on a field of the built schema (any of them admits the
 * caller, see auth-checker.ts), or undefined for a field anyone authenticated may read. Read from
 * the metadata type-graphql's auth checker runs on (the field's own decorator, else its resolver
 * class's), as resolved when the schema was built, so it is what is enforced.
 */
export function fieldScopes(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  fieldName: string,
): readonly string[] | undefined {
  const storage = getMetadataStorage();
  const root =
    parent === schema.getQueryType()
      ? storage.queries
      : parent === schema.getMutationType()
        ? storage.mutations
        : undefined;
  // A class evaluated twice (as under Jest's module registry) is registered twice: look at all.
  const defs = root
    ? root.filter((def) => def.schemaName === fieldName)
    : storage.objectTypes
        .filter((type) => type.name === parent.name)
        .flatMap((type) => type.fields ?? [])
        .filter((field) => field.schemaName === fieldName);
  const roles = defs.find((def) => def.roles?.length)?.roles;
  return roles ? (roles as string[]) : undefined;
}
