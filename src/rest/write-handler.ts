import type { Context } from 'koa';
import type { OperationResult, Session } from '../graphql/gateway.js';
import { checkBody, restFieldPath, toInput } from './body.js';
import { etagOf, expectedVersionOf } from './etags.js';
import { type CommitAnswer, idempotent } from './idempotency.js';
import { dataOf, resultOf } from './operation-result.js';
import { mutationDocument, reshapeRecord, reshapeRecords } from './operations.js';
import { Problem } from './problem.js';
import { parseReadParams } from './query-params.js';
import { pathVariables, requestBody } from './request-input.js';
import { requireScope, sessionOf } from './request-session.js';
import type { DerivedRoute } from './rest-api.js';
import type { WriteRoute } from './route-spec.js';
import { API_PREFIX, type RestOptions } from './router.js';

/*
 * A write route: the request's handler, and `write`, what it runs once the token, scope and
 * Idempotency-Key are settled. A REST bulk line calls that same `write` (src/rest/bulk-lines.ts), so
 * a line and its single request answer alike.
 */

export async function handleWrite(
  ctx: Context,
  route: WriteRoute & Pick<DerivedRoute, 'bodyArgTypes' | 'answersList'>,
  options: RestOptions,
) {
  const session = await sessionOf(ctx, options, true);
  requireScope(session, route);
  const body = route.body ? await requestBody(ctx, options.readBody) : null;
  // The path's ids before its Idempotency-Key: a segment that is no id is the 404 it always was, not
  // a key stored under a path longer than the keys' index takes (which PostgreSQL refused: a 503).
  const ids = pathVariables(ctx.params, route.pathArgs);
  await idempotent(ctx, options.idempotency, session.tokenId, body ?? null, (commit) =>
    write(ctx, route, options, session, body, commit, ids),
  );
}

/**
 * What a write reads of its request and writes of its answer: a Koa context, or a bulk line's
 * (src/rest/bulk-lines.ts).
 */
export type WriteContext = Pick<Context, 'query' | 'get' | 'set' | 'status' | 'body' | 'type'> & {
  params?: Record<string, string>;
};

export function renderProblem(ctx: WriteContext, problem: Problem) {
  ctx.status = problem.status;
  ctx.set(problem.headers);
  ctx.type = 'application/problem+json';
  ctx.body = problem.body;
}

/** `commit`: with an Idempotency-Key, the answer is stored inside the write's transaction. */
export async function write(
  ctx: WriteContext,
  route: WriteRoute & Pick<DerivedRoute, 'bodyArgTypes' | 'answersList'>,
  options: Pick<RestOptions, 'api'>,
  session: Pick<Session, 'run'>,
  body: unknown,
  commit?: CommitAnswer,
  ids = pathVariables(ctx.params, route.pathArgs),
) {
  const variables: Record<string, unknown> = { ...ids };
  const params = parseReadParams(ctx.query, route.resource);
  const validator = options.api.bodies.get(route);
  let fieldName = (field: string) => restFieldPath(route.body, field);
  if (validator) {
    const shown = { ...route.resource.fields, ...route.resource.expand };
    const checked = checkBody(validator, body ?? (route.listBody ? undefined : {}), route.listBody ? {} : shown);
    const map = validator.map;
    if (route.bodyArgs) {
      // The body's keys are the mutation's arguments themselves.
      Object.assign(variables, toInput(map, checked.value as Record<string, unknown>));
      fieldName = (field) => checked.unwrap(restFieldPath(map, field));
    } else if (route.listBody) {
      const prefix = new RegExp(`^${route.listBody}(?=\\[)`);
      variables.input = {
        [route.listBody]: (checked.value as Record<string, unknown>[]).map((item) => toInput(map, item)),
      };
      fieldName = (field) => restFieldPath(map, field.replace(prefix, ''));
    } else {
      variables.input = toInput(map, checked.value as Record<string, unknown>);
      fieldName = (field) => checked.unwrap(restFieldPath(map, field));
    }
  }
  // If-Match becomes the argument the route maps it onto; the use case compares it under the row lock.
  if (route.ifMatch) {
    const expected = expectedVersionOf(ctx.get('if-match'));
    if (expected) variables[route.ifMatch] = expected;
  }
  const respond = (result: OperationResult) => {
    if (result.errors?.length) throw Problem.fromGraphQL(result.errors, fieldName);
    if (route.answersList) {
      // A mutation answering several records (an adjustment's levels): a JSON array of them, no ETag.
      ctx.status = route.status;
      ctx.body = reshapeRecords(route.resource, params, resultOf(result) as Record<string, unknown>[]);
      return;
    }
    const data = dataOf(result);
    if (typeof data.version === 'number') ctx.set('ETag', etagOf(data.version));
    if (route.location && typeof data.id === 'number')
      ctx.set('Location', `${API_PREFIX}${route.location.replace('{id}', String(data.id))}`);
    ctx.status = route.status;
    ctx.body = reshapeRecord(route.resource, params, data);
  };
  let answered: OperationResult | undefined;
  const result = await session.run({
    document: mutationDocument(route.resource, route.operation, params, {
      intArgs: Object.values(route.pathArgs),
      input: route.input,
      ifMatch: route.ifMatch,
      bodyArgs: route.bodyArgTypes,
    }),
    variables,
    // Every variable was checked here: the body by `requestBody` and `checkBody`, the ids by `idParam`.
    inputChecked: true,
    beforeCommit: commit
      ? async (outcome, sql) => {
          try {
            respond(outcome);
          } catch (error) {
            if (!(error instanceof Problem) || error.status >= 500) throw error; // rolls back; nothing kept
            renderProblem(ctx, error);
          }
          await commit(sql);
          answered = outcome;
        }
      : undefined,
  });
  // Answered inside the transaction unless it failed (then `result` is the failure).
  if (result !== answered) respond(result);
}
