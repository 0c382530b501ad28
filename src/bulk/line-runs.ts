import type { DocumentNode, GraphQLError, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { lineRefusal } from '../graphql/bulk-mutation.js';
import { parseOperation } from '../graphql/document-guard.js';
import { formatError } from '../graphql/format-error.js';
import type { Session } from '../graphql/gateway.js';
import type { RestLine, RestLines } from '../rest/bulk-lines.js';
import { Problem } from '../rest/problem.js';

/**
 * How one line of each form runs, and what its result line holds (docs/decisions.md#bulk-writes):
 * the REST form's line is the status and body its single request would have answered; the GraphQL
 * form's, the `data` and `errors` the mutation answered with the line's variables.
 */

/** Operations as the operation's token, inside the runner's transaction. */
export type LineSession = Pick<Session, 'scopes' | 'run'>;

/** A line's result (its `line` is added by the runner), and whether it counts as failed. */
export interface LineOutcome {
  failed: boolean;
  result: Record<string, unknown>;
}

/**
 * The database was unavailable (or the line ran past its statement timeout, or the pool was
 * exhausted): not the line's answer but the service's trouble. Its transaction is rolled back and
 * the line runs again later; only a line that meets this again and again gets it as its result.
 */
export class TransientLineError extends Error {
  constructor(readonly outcome: LineOutcome) {
    super('the line could not run now');
  }
}

export type LineRun = (session: LineSession, input: unknown) => Promise<LineOutcome>;

const TRANSIENT_CODES = new Set(['SERVICE_UNAVAILABLE', 'OVERLOADED']);

/** A REST line: its request answered through the route table (src/rest/bulk-lines.ts). */
export function restLineRun(lines: RestLines): LineRun {
  return async (session, input) => {
    const answer = await lines.answer(session, input as RestLine);
    const outcome = {
      failed: answer.status >= 400,
      result: { status: answer.status, body: answer.body ?? null, ...(answer.etag ? { etag: answer.etag } : {}) },
    };
    if (answer.status === 503) throw new TransientLineError(outcome);
    return outcome;
  };
}

const formatted = (error: GraphQLError): GraphQLFormattedError => formatError(error.toJSON(), error);

/**
 * A GraphQL line: the operation's mutation with the line's variables, refused first as `/graphql`
 * would refuse it (its variables' structural limits, then depth and complexity with them).
 */
export function graphqlLineRun(schema: GraphQLSchema, mutation: string): LineRun {
  const parsed = parseOperation(schema, mutation);
  return async (session, input) => {
    // Checked when the operation was made; a schema changed since then refuses every line alike.
    if (!('kind' in parsed)) return { failed: true, result: { data: null, errors: parsed.map(formatted) } };
    const variables = input as Record<string, unknown>;
    const refusal = lineRefusal(schema, parsed as DocumentNode, variables);
    if (refusal) return { failed: true, result: { data: null, errors: [formatted(refusal)] } };
    const answer = await session.run({ document: mutation, variables });
    const errors = answer.errors?.length ? answer.errors : undefined;
    const outcome = {
      failed: errors !== undefined,
      result: { data: answer.data ?? null, ...(errors ? { errors } : {}) },
    };
    if (errors?.some((error) => TRANSIENT_CODES.has(String(error.extensions?.code)))) {
      throw new TransientLineError(outcome);
    }
    return outcome;
  };
}

/** A line whose run failed in a way no request's answer covers (a bug): its single request's 500, in each form. */
export function internalErrorOutcome(form: 'rest' | 'graphql'): LineOutcome {
  if (form === 'rest')
    return { failed: true, result: { status: 500, body: new Problem(500, 'Internal server error').body } };
  const error = { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  return { failed: true, result: { data: null, errors: [error] } };
}
