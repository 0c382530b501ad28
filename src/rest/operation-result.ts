import type { OperationResult } from '../graphql/gateway.js';
import { Problem } from './problem.js';

/*
 * What a REST route makes of the GraphQL operation it ran: the operation's `result` field, or the
 * problem its errors (or a missing result) stand for. Shared by the read, export and write handlers.
 */

/** The operation's result, or the problem its errors stand for (field paths in the body's names). */
/** The operation's `result` field, or the problem its errors (or its absence) make. */
export function resultOf(result: OperationResult): unknown {
  if (result.errors?.length) throw Problem.fromGraphQL(result.errors);
  if (result.data?.result == null) throw new Problem(500, 'Internal server error');
  return result.data.result;
}

export function dataOf(result: OperationResult): Record<string, unknown> {
  return resultOf(result) as Record<string, unknown>;
}

/** The problem an operation's errors (or its missing result) stand for. */
export function resultProblem(result: OperationResult): Problem {
  return result.errors?.length ? Problem.fromGraphQL(result.errors) : new Problem(500, 'Internal server error');
}
