import 'reflect-metadata';
import {
  type ValidationError,
  type ValidatorOptions,
  validateOrReject,
  getMetadataStorage as validationMetadata,
} from 'class-validator';
import { type GraphQLField, type GraphQLSchema, isObjectType, lexicographicSortSchema, printSchema } from 'graphql';
import { ArgumentValidationError, buildSchema, getMetadataStorage } from 'type-graphql';
import { checkListColumns } from '../domain/listing.js';
import { importFolder } from '../folder-modules.js';
import { isComputedRowProperty } from '../reads/read-plan.js';
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
  const resolvers = modules
    .flatMap((module) => Object.values(module))
    .filter((value): value is Function => typeof value === 'function' && declared.has(value));
  if (!resolvers.length) throw new Error('no resolver classes found in src/resolvers');
  return resolvers as [Function, ...Function[]];
}

const NO_PUBSUB = {
  publish: () => undefined,
  subscribe: (): never => {
    throw new Error('no subscription reads the in-process PubSub');
  },
};

/**
 * The one schema: served at /graphql and executed in-process by the REST layer.
 *
 * The input guard is put on the root resolver classes (`@UseMiddleware(inputGuard)`), not given
 * as a global middleware: type-graphql wraps every field of every type in the global middlewares,
 * which turned each scalar of each row into a chain of promises (measurable CPU on every list).
 * Without it, plain fields resolve synchronously. The check below keeps every root operation guarded.
 */
export async function buildStoreSchema(): Promise<GraphQLSchema> {
  const resolvers = await discoverResolvers();
  const schema = await buildSchema({
    resolvers,
    authChecker,
    validateFn: validateArgument,
    // type-graphql asks for a PubSub as soon as a subscription exists, even when it brings its own
    // source: `Subscription.events` streams the event feed (woken by LISTEN/NOTIFY), never this.
    pubSub: NO_PUBSUB,
  });
  const storage = getMetadataStorage();
  // The metadata storage is process-wide: a process that loaded the resolvers more than once (Jest
  // running several files in one worker) also holds the earlier classes, which this schema does not use.
  const unguarded = [...storage.queries, ...storage.mutations].filter(
    (def) => resolvers.includes(def.target) && !def.middlewares?.includes(inputGuard),
  );
  if (unguarded.length)
    throw new Error(
      `root operations without @UseMiddleware(inputGuard): ${unguarded.map((d) => d.schemaName).join(', ')}`,
    );
  checkListColumns();
  describeRootOperations(schema);
  restoreInheritedExtensions(schema);
  readPlainFieldsAsProperties(schema, resolvers);
  return schema;
}

/**
 * type-graphql gives every `@Field` a resolver that runs the field's middlewares and auth and then
 * reads the property, even when there are none: graphql-jit then calls it like any resolver, with
 * its closures and resolve info, for every value of every row (most of what a list allocated,
 * ~1 MB per 50 products). These fields are left to the default resolver instead, which graphql-jit
 * compiles to a property read of the row, the same value read the same way:
 * - a `@Field` with no `@Authorized`, no middleware, no arguments and its property's own name
 *   (an entity relation's list is such a field: the read plan puts it on the row under its name);
 * - a field resolver that only returns a list or value `@Computed` under its field's name (the
 *   read plan put it on the row there, src/reads/read-plan.ts), when it too has no `@Authorized`,
 *   no middleware and takes nothing but the row.
 * Anything else keeps its resolver.
 */
function readPlainFieldsAsProperties(schema: GraphQLSchema, resolvers: Function[]) {
  const storage = getMetadataStorage();
  // By type name, not class: a process that loaded an entity twice (Jest) holds two classes of one
  // type, and the copy no resolver names must not take the resolver off a field it overrides.
  const typeNameOf = (cls: Function | undefined) => storage.objectTypes.find((o) => o.target === cls)?.name;
  const unguarded = (def: { roles?: unknown[]; middlewares?: unknown[] }) =>
    !def.roles?.length && !def.middlewares?.length;
  // A type's fields with those it inherits (a page type's from the generic page), nearest first.
  const declaredFields = (target: Function) => {
    const chain: NonNullable<(typeof storage.objectTypes)[number]['fields']> = [];
    for (let cls = target; cls && cls !== Function.prototype; cls = Object.getPrototypeOf(cls)) {
      for (const field of storage.objectTypes.find((o) => o.target === cls)?.fields ?? []) {
        if (!chain.some((f) => f.schemaName === field.schemaName)) chain.push(field);
      }
    }
    return chain;
  };
  for (const objectType of storage.objectTypes) {
    const type = schema.getType(objectType.name);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    for (const field of declaredFields(objectType.target)) {
      const resolver = storage.fieldResolvers.find(
        (r) =>
          r.methodName === field.name && resolvers.includes(r.target) && typeNameOf(r.getObjectType?.()) === type.name,
      );
      const marked =
        resolver !== undefined && isComputedRowProperty(resolver.target, resolver.methodName, field.schemaName);
      const plain = resolver
        ? marked && unguarded(resolver) && resolver.params?.every((p) => p.kind === 'root')
        : unguarded(field) && !field.params?.length && field.schemaName === field.name;
      if (plain && fields[field.schemaName]) fields[field.schemaName].resolve = undefined;
      else if (!resolver && unguarded(field) && !field.params?.length && fields[field.schemaName])
        renamed.set(fields[field.schemaName], field.name);
    }
  }
}

// Plain `@Field`s served under a name other than their property's (`@Field({ name: 'variant' })`).
const renamed = new WeakMap<GraphQLField<unknown, unknown>, string>();

/**
 * The property a field reads when it is a plain `@Field` renamed in the schema (type-graphql keeps
 * a resolver for it that reads the property), undefined for any other field: PostgreSQL can answer
 * it as that property's column (src/graphql/answer-passthrough.ts).
 */
export function renamedProperty(field: GraphQLField<unknown, unknown>): string | undefined {
  return renamed.get(field);
}

/** type-graphql's own argument validation settings (missing properties are the schema's business). */
const VALIDATOR_OPTIONS: ValidatorOptions = { forbidUnknownValues: false, skipMissingProperties: true };

const constrained = new WeakMap<object, boolean>();
/** Whether class-validator holds any constraint for the argument's class (page bounds, …). */
function hasConstraints(target: object): boolean {
  let known = constrained.get(target);
  if (known === undefined)
    constrained.set(
      target,
      (known = validationMetadata().getTargetValidationMetadatas(target as Function, '', true, false).length > 0),
    );
  return known;
}

/**
 * Validates an argument object with class-validator exactly as type-graphql's default does (same
 * options, same ArgumentValidationError), but with class-validator imported once: type-graphql's
 * default runs a dynamic `import()` on every call of every root field, a module-loader lookup per
 * request. Classes without constraints are not walked.
 */
async function validateArgument(value: unknown): Promise<void> {
  if (value === null || typeof value !== 'object') return;
  const objects = (Array.isArray(value) ? value : [value]).filter(
    (item): item is object => item !== null && typeof item === 'object' && hasConstraints(item.constructor),
  );
  if (!objects.length) return;
  try {
    await Promise.all(objects.map((item) => validateOrReject(item, VALIDATOR_OPTIONS)));
  } catch (errors) {
    throw new ArgumentValidationError(errors as ValidationError[]);
  }
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
  mutation.description =
    'Writes, each in one transaction. Every request needs a bearer token; each field names the scope it needs.';
  const subscription = schema.getSubscriptionType();
  if (subscription) {
    subscription.description =
      'Live data over WebSocket at /graphql (graphql-transport-ws), the token in connectionParams; ' +
      'each field names its scope.';
  }
  const roots = [
    [query, storage.queries],
    [mutation, storage.mutations],
    [subscription, storage.subscriptions],
  ] as const;
  for (const [type, defs] of roots) {
    if (!type) continue;
    for (const def of defs) {
      const scopes =
        storage.authorizedFields.find((a) => a.target === def.target && a.fieldName === def.methodName)?.roles ?? [];
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
