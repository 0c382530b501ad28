import type { MiddlewareFn } from 'type-graphql';
import { type FieldError, ValidationError } from '../domain/errors.js';
import { inputProblems } from '../domain/input-limits.js';
import { inputChecks } from '../observability/metrics.js';
import type { GraphQLContext } from './context.js';
import { nullProblems } from './optional-nulls.js';

/**
 * Guards every root operation's arguments once, before any resolver runs, with the one set of
 * input limits (src/domain/input-limits.ts) the REST edge applies too: text length (search filter
 * values tighter), list length, valid Unicode, no NUL (PostgreSQL text cannot hold it), finite
 * numbers; and null refused on `@Optional` input fields (src/schema/optional-field.ts). Field
 * resolvers are not inspected, so the cost is per operation, not per row.
 *
 * A REST write skips both (`context.inputChecked`): its edge ran the same two rules on the body
 * before the operation was built (src/rest/request-input.ts `requestBody`, the body schema's null
 * refusals), and its other arguments are ids the edge parsed. Each rule runs once per request.
 */
export const inputGuard: MiddlewareFn<GraphQLContext> = async ({ args, info, context }, next) => {
  const root = info.parentType.name;
  if ((root === 'Query' || root === 'Mutation') && args && Object.keys(args).length && !context.inputChecked) {
    const errors: FieldError[] = [];
    inputChecks.inc({ check: 'input_limits', at: 'input_guard' });
    for (const [name, value] of Object.entries(args))
      errors.push(...inputProblems(value, { root: name, filter: name === 'filter' }));
    inputChecks.inc({ check: 'optional_nulls', at: 'input_guard' });
    errors.push(...nullProblems(info.parentType.getFields()[info.fieldName], args));
    if (errors.length)
      throw new ValidationError(errors.map((e) => ({ ...e, field: e.field.replace(/^(input|filter)\./, '') })));
  }
  return next();
};
