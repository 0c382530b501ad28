import type { MiddlewareFn } from 'type-graphql';
import { ValidationError, type FieldError } from '../domain/errors.js';
import type { GraphQLContext } from './context.js';

const MAX_LIST = 1000;

function inspect(value: unknown, path: string, errors: FieldError[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) errors.push({ field: path, message: 'must not contain the NUL character' });
  } else if (Array.isArray(value)) {
    if (value.length > MAX_LIST) errors.push({ field: path, message: `may hold at most ${MAX_LIST} values` });
    else value.forEach((v, i) => inspect(v, `${path}[${i}]`, errors));
  } else if (value && typeof value === 'object' && !(value instanceof Date)) {
    for (const [k, v] of Object.entries(value)) inspect(v, path ? `${path}.${k}` : k, errors);
  }
}

/**
 * Guards every root operation's arguments once, before any resolver runs: no NUL characters
 * (PostgreSQL text cannot hold them, a 500 otherwise) and no huge lists (each value of a filter
 * list becomes SQL). Field resolvers are not inspected, so the cost is per operation, not per row.
 */
export const inputGuard: MiddlewareFn<GraphQLContext> = async ({ args, info }, next) => {
  const root = info.parentType.name;
  if ((root === 'Query' || root === 'Mutation') && args && Object.keys(args).length) {
    const errors: FieldError[] = [];
    inspect(args, '', errors);
    if (errors.length) throw new ValidationError(errors.map((e) => ({ ...e, field: e.field.replace(/^(input|filter)\./, '') })));
  }
  return next();
};
