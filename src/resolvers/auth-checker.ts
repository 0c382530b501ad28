import type { AuthCheckerFn } from 'type-graphql';
import { ForbiddenError, UnauthenticatedError } from '../domain/errors.js';
import type { GraphQLContext } from './context.js';

/**
 * `@Authorized('scope', …)` passes when the caller's token holds any of the named scopes. REST
 * routes run through the same resolvers, so this is the one place scopes are checked.
 */
export const authChecker: AuthCheckerFn<GraphQLContext> = ({ context }, scopes) => {
  if (!context.principal) throw new UnauthenticatedError();
  if (scopes.length === 0 || scopes.some((s) => context.principal.scopes.has(s as never))) return true;
  throw new ForbiddenError(scopes);
};
