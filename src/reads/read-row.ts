import type { Collection } from '@mikro-orm/core';

/**
 * A value of an entity property as it arrives in a row's JSON (json-writer.ts rowObject): a
 * timestamp is its ISO string, a reference to another entity its id, an embeddable a nested
 * object, a decimal its exact text; scalars as they are.
 */
export type JsonValue<T> = T extends Date
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer U)[]
      ? readonly JsonValue<U>[]
      : T extends { id: infer K }
        ? K
        : T extends object
          ? { readonly [P in keyof T as T[P] extends Function ? never : P]: JsonValue<T[P]> }
          : T;

type Columns<E> = {
  readonly [P in keyof E as E[P] extends Collection<object> | Function | undefined ? never : P]: JsonValue<E[P]>;
};

/**
 * A row of the read path as it is: the JSON object PostgreSQL built for an entity, never an
 * instance of it. Its columns are typed as they arrive (JsonValue); its relations are only there
 * when the plan loaded them, so a resolver names those it reads in `Loaded`: a list under its
 * own name (`{ items: ReadRow<FulfilmentItem>[] }`), a single row under `$name`
 * (`{ $customer: ReadRow<Customer> | null }`), a computed value under its name.
 *
 * Field resolvers declare `@Root()` with it: a mapped type reflects as Object, so type-graphql
 * passes the row as it is instead of building an instance of a class from it on every call.
 */
export type ReadRow<E, Loaded extends object = object> = Columns<E> & Readonly<Loaded>;
