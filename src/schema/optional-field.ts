import type { GraphQLInputField } from 'graphql';
import { Extensions, Field, type FieldOptions } from 'type-graphql';

type ReturnTypeFunc = NonNullable<Parameters<typeof Field>[0]>;

/** The extension that marks an input field as optional but never null (read by `refusesNull`). */
const OMIT_ONLY = 'omitOnly';

/** The mark as `extensions` of an input field, for a schema built without type-graphql. */
export const OPTIONAL_EXTENSIONS = { [OMIT_ONLY]: true } as const;

/** What a refused null is told, by GraphQL and REST alike. */
export const NULL_REFUSED = 'must not be null (leave it out instead)';

/**
 * An input field that may be left out (its value is then kept, or defaulted) but never set to
 * null. GraphQL 16 cannot say "optional, not null": a nullable input field takes null. So the
 * schema marks these fields, `/graphql` refuses null on them (`nullProblems` in
 * src/resolvers/optional-nulls.ts, run by the input guard) and the REST layer derives the same
 * rule for its bodies. A nullable `@Field` without the mark takes null, which clears the value
 * ("Null clears" in its description).
 */
export function Optional(type: ReturnTypeFunc, options: Omit<FieldOptions, 'nullable'> = {}): PropertyDecorator {
  const field = Field(type, { ...options, nullable: true });
  const mark = Extensions(OPTIONAL_EXTENSIONS);
  return (target, key) => {
    field(target, key);
    mark(target, key);
  };
}

export const refusesNull = (field: GraphQLInputField): boolean => field.extensions?.[OMIT_ONLY] === true;
