import type { GraphQLScalarType } from 'graphql';
import { type ClassType, Field, getMetadataStorage, InputType } from 'type-graphql';
import { type SortTerm, sortInput } from './pagination.js';

/**
 * What a list sorts and filters by, declared once per field in a table next to its entity
 * (`orderList` in src/entities/order.entity.ts; docs/architecture.md#making-a-field-sortable-or-filterable).
 * From the table come the GraphQL sort enum and sort input (`OrderSortField`, `OrderSort`), the
 * filter input (`OrderFilter`), the ORDER BY and WHERE of the domain (src/domain/listing.ts) and,
 * through the schema, REST's `sort` whitelist, its search keys and their OpenAPI documentation
 * (src/rest/rest-api.ts). The table's order is the enum's and the filter input's.
 */

/** How the filter input takes a field, and how the domain matches it. */
export type FilterKind =
  /** `[String!]`: any of these substrings, case-insensitively. */
  | 'text'
  /** `[T!]`: any of these values, exactly. */
  | 'anyOf'
  /** A range input (`IntFilter`, `DecimalFilter`, `TimestampFilter`): any of `eq`, within `gte`..`lte`. */
  | 'range'
  /** Any input type: the domain writes the condition itself (src/domain/order-search.ts). */
  | 'own';

export interface FilterDeclaration<V = unknown, K extends FilterKind = FilterKind> {
  kind: K;
  /** The filter input field's GraphQL type (nullable). */
  type: () => object;
  /** Its description in the filter input. */
  description: string;
  /** `text` only: searched on the column's stored lower-case copy `<column>Folded` (src/domain/text-fold.ts). */
  folded?: boolean;
  /** The value the filter input holds for it (for types only; never set). */
  readonly value?: V;
}

export interface ListField {
  /** The entity property sorted and filtered by; the field's own name when not given. */
  column?: string;
  /** `sort` may name it: a value of the sort enum, `Sort by \`field\``. */
  sort?: true;
  /** The filter input takes it (see `filterBy`). */
  filter?: FilterDeclaration;
}

export type ListFieldTable = Record<string, ListField>;

/** The TypeScript value of a GraphQL type as the declarations name it (`Int`, `Boolean`, an enum, an input class). */
type ValueOf<T> =
  T extends GraphQLScalarType<infer V>
    ? V
    : T extends BooleanConstructor
      ? boolean
      : T extends StringConstructor
        ? string
        : T extends ClassType<infer I>
          ? I
          : T[Exclude<keyof T, number>];
type ThunkValue<T> = T extends readonly (infer E)[] ? ValueOf<E>[] : ValueOf<T>;

/** The filter kinds, each with its GraphQL type. */
export const filterBy = {
  text: (description: string, options: { folded?: boolean } = {}): FilterDeclaration<string[], 'text'> => ({
    kind: 'text',
    type: () => [String],
    description,
    ...options,
  }),
  anyOf: <T extends object>(type: T, description: string): FilterDeclaration<ValueOf<T>[], 'anyOf'> => ({
    kind: 'anyOf',
    type: () => [type],
    description,
  }),
  range: <R extends object>(type: ClassType<R>, description: string): FilterDeclaration<R, 'range'> => ({
    kind: 'range',
    type: () => type,
    description,
  }),
  own: <T extends object>(type: () => T, description: string): FilterDeclaration<ThunkValue<T>, 'own'> => ({
    kind: 'own',
    type,
    description,
  }),
};

type KeysWhere<F, Match> = Extract<{ [K in keyof F]: F[K] extends Match ? K : never }[keyof F], string>;
export type SortKey<F> = KeysWhere<F, { sort: true }>;
type FilterValue<S> = S extends { filter: FilterDeclaration<infer V> } ? V : never;
/** The filter input's value: each filterable field, optional. */
export type FilterOf<F> = { [K in KeysWhere<F, { filter: FilterDeclaration }>]?: FilterValue<F[K]> };
/** The fields whose condition the domain writes (`filterBy.own`), each with its value. */
export type OwnFilters<F> = { [K in KeysWhere<F, { filter: FilterDeclaration<unknown, 'own'> }>]: FilterValue<F[K]> };

export interface ListFields<F extends ListFieldTable = ListFieldTable> {
  /** The entity class the list reads. */
  target: Function;
  /** Its GraphQL type's name (`Order`), the prefix of the generated types. */
  type: string;
  fields: F;
  /** Sort field → the entity property it orders by (src/domain/listing.ts `orderByOf`). */
  columns: Record<SortKey<F>, string>;
  /** One sort term (`OrderSort`): `field`, a value of `OrderSortField`, and its direction. */
  SortInput: ClassType<SortTerm<SortKey<F>>>;
  /** The filter input (`OrderFilter`); none when no field is filterable. */
  FilterInput: ClassType<FilterOf<F>>;
}

/** What the start-up check reads of a declared list (src/domain/listing.ts `checkListColumns`). */
export type DeclaredList = Pick<ListFields, 'target' | 'type' | 'fields'>;

const declared: DeclaredList[] = [];

/** Every list declared in this process so far (src/domain/listing.ts checks their columns at schema build). */
export const declaredLists = (): readonly DeclaredList[] => declared;

function objectTypeName(target: Function): string {
  const type = getMetadataStorage().objectTypes.findLast((t) => t.target === target);
  if (!type) throw new Error(`listFields: ${target.name} is not a GraphQL object type (declare the table after it)`);
  return type.name;
}

/** The filter input of a list: its filterable fields in the table's order, each nullable. */
function filterInputOf(name: string, description: string, fields: ListFieldTable): ClassType<object> {
  const FilterInput = { [`${name}Filter`]: class {} }[`${name}Filter`];
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.filter)
      Field(spec.filter.type, { nullable: true, description: spec.filter.description })(FilterInput.prototype, key);
  }
  InputType(`${name}Filter`, { description })(FilterInput);
  return FilterInput;
}

/**
 * Declares what a list of `target` (an entity that is a GraphQL object type) sorts and filters by,
 * one entry per field in the order GraphQL shows them, and makes its sort and filter inputs.
 * `filter` describes the filter input, needed when a field is filterable.
 */
export function listFields<const F extends ListFieldTable>(
  target: Function,
  fields: F,
  options: { filter?: string } = {},
): ListFields<F> {
  const type = objectTypeName(target);
  const entries = Object.entries(fields);
  const sorted = entries.filter(([, spec]) => spec.sort).map(([key]) => key as SortKey<F>);
  const columns = Object.fromEntries(sorted.map((key) => [key, fields[key].column ?? key])) as Record<
    SortKey<F>,
    string
  >;
  const filtered = entries.some(([, spec]) => spec.filter);
  if (filtered && !options.filter)
    throw new Error(`listFields(${type}): a filterable list needs the filter's description`);
  const list: ListFields<F> = {
    target,
    type,
    fields,
    columns,
    SortInput: sortInput(type, sorted),
    FilterInput: (filtered ? filterInputOf(type, options.filter!, fields) : undefined) as ClassType<FilterOf<F>>,
  };
  declared.push({ target, type, fields });
  return list;
}
