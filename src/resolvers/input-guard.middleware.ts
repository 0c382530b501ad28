import type { MiddlewareFn } from 'type-graphql';
import { ValidationError, type FieldError } from '../domain/errors.js';
import { inputProblems } from '../domain/input-limits.js';
import type { GraphQLContext } from './context.js';
import { nullProblems } from './optional-nulls.js';

/**
 * Guards every root operation's arguments once, before any resolver runs, with the one set of
 * input limits (src/domain/input-limits.ts) the REST edge applies too: text length (search filter
 * values tighter), list length, valid Unicode, no NUL (PostgreSQL text cannot hold it), finite
 * numbers; and null refused on `@Optional` input fields (src/schema/optional-field.ts). Field
 * resolvers are not inspected, so the cost is per operation, not per row.
 */
export const inputGuard: MiddlewareFn<GraphQLContext> = async ({ args, info }, next) => {
  const root = info.parentType.name;
  if ((root === 'Query' || root === 'Mutation') && args && Object.keys(args).length) {
    const errors: FieldError[] = [];
    for (const [name, value] of Object.entries(args)) errors.push(...inputProblems(value, { root: name, filter: name === 'filter' }));
    errors.push(...nullProblems(info.parentType.getFields()[info.fieldName], args));
    if (errors.length) throw new ValidationError(errors.map((e) => ({ ...e, field: e.field.replace(/^(input|filter)\./, '') })));
  }
  return next();
};
