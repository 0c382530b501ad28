import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import { importFolder } from '../folder-modules.js';
import { authChecker } from '../resolvers/auth-checker.js';
import { inputGuard } from '../resolvers/input-guard.middleware.js';
import { restoreInheritedExtensions } from '../schema/inherited-extensions.js';

/**
 * Every resolver class of src/resolvers, found at start: a class declared with `@Resolver()` in a
 * `*.resolver.ts` file there is part of the schema, with no list to add it to.
 */
async function discoverResolvers(): Promise<[Function, ...Function[]]> {
  const modules = await importFolder(new URL('../resolvers/', import.meta.url), /\.resolver$/);
  const declared = new Set(getMetadataStorage().resolverClasses.map((resolver) => resolver.target));
  const resolvers = modules.flatMap((module) => Object.values(module)).filter((value): value is Function => typeof value === 'function' && declared.has(value));
  if (!resolvers.length) throw new Error('no resolver classes found in src/resolvers');
  return resolvers as [Function, ...Function[]];
}

/**
 * The one schema: served at /graphql and executed in-process by the REST layer.
 *
 * The input guard is put on the root resolver classes (`@UseMiddleware(inputGuard)`), not given
 * as a global middleware: type-graphql wraps every field of every type in the global middlewares,
 * which turned each scalar of each row into a chain of promises (measurable CPU on every list).
 * Without it, plain fields resolve synchronously. The check below keeps every root operation guarded.
 */
export async function buildStoreSchema(): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: await discoverResolvers(),
    authChecker,
    validate: { forbidUnknownValues: false },
  });
  const storage = getMetadataStorage();
  const unguarded = [...storage.queries, ...storage.mutations].filter((def) => !def.middlewares?.includes(inputGuard));
  if (unguarded.length) throw new Error(`root operations without @UseMiddleware(inputGuard): ${unguarded.map((d) => d.schemaName).join(', ')}`);
  describeRootOperations(schema);
  restoreInheritedExtensions(schema);
  return schema;
}

/**
 * The root types get their descriptions here (type-graphql has no place to write them), and every
 * root field's description names the scope its `@Authorized` asks for, taken from the same metadata
 * the auth checker runs on, so the reference cannot promise another scope than the one enforced.
 */
function describeRootOperations(schema: GraphQLSchema) {
  const storage = getMetadataStorage();
  const query = schema.getQueryType()!;
  const mutation = schema.getMutationType()!;
  query.description = 'Reads. Every request needs a bearer token; each field names the scope it needs.';
  mutation.description = 'Writes, each in one transaction. Every request needs a bearer token; each field names the scope it needs.';
  for (const [type, defs] of [[query, storage.queries], [mutation, storage.mutations]] as const) {
    for (const def of defs) {
      const scopes = storage.authorizedFields.find((a) => a.target === def.target && a.fieldName === def.methodName)?.roles ?? [];
      const field = type.getFields()[def.schemaName];
      if (!field || !scopes.length || field.description?.includes('Scope:')) continue;
      const text = field.description?.replace(/\.$/, '');
      field.description = `${text ? `${text}. ` : ''}Scope: ${scopes.map((s) => `\`${s}\``).join(' or ')}.`;
    }
  }
}

/**
 * The schema as committed in schema.graphql (`npm run schema:emit`; a test compares). Types and
 * fields are sorted by name, so the file changes only when the API does, never with the order in
 * which discovery happens to load the resolvers and entities.
 */
export function schemaDocument(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
