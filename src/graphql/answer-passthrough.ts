import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import type { Companion } from '../db/prepared-statements.js';
import { logger } from '../logger.js';
import {
  type AnswerLines,
  type AnswerPage,
  type AnswerRecord,
  answerPages,
  answerRecords,
} from '../reads/read-query.js';
import type { GraphQLContext } from '../resolvers/context.js';
import type { compiledExecutor } from './compiled-execution.js';
import { cachedShape, type PassthroughShape } from './passthrough-shapes.js';
import type { Rendering } from './rendering.js';

/**
 * A `/graphql` page or record read answered with PostgreSQL's JSON, never parsed and re-serialised
 * here; REST lists and exports use the same SQL with their own keys (a Rendering).
 *
 * Where an operation is one root page field (`orders`, `products`, …) or one record by id whose
 * selection holds only plain fields (no arguments, no directive, no fragment, no field scope; a
 * field resolver only where its value is declared, `@Projects`, src/reads/projection.ts) of
 * scalar types PostgreSQL can write exactly as their serialisers do, embeddables of such, and list
 * relations of such, the items' (or the record's) JSON is built in SQL with the response's keys
 * (aliases included) in the selection's order, and the answer is `{"data":{"<key>":<page or
 * record>}}` around PostgreSQL's text. The operation is executed as any other, by the one executor
 * (compiled-execution.ts), only with nothing selected below its root field: the root field's own
 * resolver runs (its `@Authorized` scope, input guard, argument validation, filters, page bounds, a
 * missing record's NOT_FOUND), so only the read's statement differs, and every error is execution's
 * own. Anything else is executed whole.
 *
 * Which operations qualify, and their item's SQL, is passthrough-shapes.ts; the SQL of the JSON is
 * object-sql.ts and leaf-sql.ts. This file executes the operation and puts PostgreSQL's text in.
 */

/** The answer of one `/graphql` request written by PostgreSQL, spliced into Apollo's body (see withAnswerText). */
interface Holder {
  text?: string;
}

const scope = new AsyncLocalStorage<Holder>();
// What stands in the data for the page until the body is written; no client value reaches the body
// before the splice (the data holds nothing else), so it cannot be forged.
const PLACEHOLDER = `__answer_${randomUUID().replace(/-/g, '')}__`;
const placeholder = { toJSON: () => PLACEHOLDER };

/**
 * Runs `run` with a place for a PostgreSQL answer; `write` puts that answer into a body written with
 * the placeholder where the root field's value goes (src/graphql/koa-apollo.ts, as it writes the body).
 */
export async function withAnswerText<T>(run: () => Promise<T>): Promise<{ result: T; write(json: string): string }> {
  const holder: Holder = {};
  const result = await scope.run(holder, run);
  const text = holder.text;
  return { result, write: (json) => (text === undefined ? json : json.replace(`"${PLACEHOLDER}"`, () => text)) };
}

/** The executor every operation runs through (compiled-execution.ts). */
type Execute = ReturnType<typeof compiledExecutor>;

/** An operation as a request gives it: the executor, the schema, the document, the request's context, its variables. */
export type Given = [Execute, GraphQLSchema, DocumentNode, GraphQLContext, Record<string, unknown> | undefined];

/**
 * Executes the operation's shape (`name`: the operation's name, for the response's keys; or a
 * rendering, an edge's keys of a page's records): its document runs the root field's resolver and
 * nothing below it, its readPage or readRecord answered by PostgreSQL (its items as `lines` or not,
 * `check` riding on the read's statement: the request's token check, src/auth/carried-token-check.ts);
 * `taken` makes the result of the answered read. Undefined when the operation is not one PostgreSQL
 * answers: the caller then executes it as always; and when `taken` finds no answer (the root field
 * did not read through readPage or readRecord), after which the document always runs the normal way.
 * Else the execution's errors (variables, the root field's), as it reports them.
 */
async function answered<T>(
  [execute, schema, document, context, given]: Given,
  name: string | null | undefined | Rendering,
  { lines = false, check }: { lines?: boolean; check?: Companion },
  taken: (shape: PassthroughShape, request: AnswerPage & AnswerRecord) => T | undefined,
): Promise<T | ExecutionResult | undefined> {
  const [operationName, rendering] = typeof name === 'string' || name == null ? [name] : [undefined, name];
  const { shape, forget } = cachedShape([schema, context.em.getMetadata(), document, operationName], rendering);
  if (!shape) return undefined;
  const { type, asked, selection, itemSql } = shape;
  const request = { type, asked, selection, itemSql, lines, check };
  const requests = shape.pageKeys ? answerPages : answerRecords;
  requests.set(context.em, request);
  let result: ExecutionResult;
  try {
    result = await execute(shape.document, operationName, context, given);
  } finally {
    requests.delete(context.em);
  }
  // An error, or a root field that answered null (no read to splice in), is execution's answer.
  if (result.errors?.length || result.data?.[shape.key] == null) return result;
  const answer = taken(shape, request);
  if (answer === undefined) {
    // A root field of a page or record type that reads another way: a shape no declaration
    // refuses (passthrough-shapes.ts), so a bug; its request now runs whole, its root field a second time.
    logger.error({ type, key: shape.key }, 'a root field PostgreSQL was to answer did not read through readPage');
    forget();
  }
  return answer;
}

/**
 * The result of a plain page or record operation with the page or record as PostgreSQL's text
 * (left for withAnswerText's `write`), or undefined: the caller then executes the operation as always.
 */
export async function answerFromPostgres(
  [execute, schema, document, context, given]: Given,
  operationName: string | null | undefined,
  check?: Companion,
): Promise<ExecutionResult | undefined> {
  const holder = scope.getStore();
  if (!holder) return undefined;
  return answered([execute, schema, document, context, given], operationName, { check }, (shape, request) => {
    const { record, answer: page } = request;
    if (!shape.pageKeys) {
      if (record === undefined) return undefined;
      holder.text = record;
    } else if (!page) {
      return undefined;
    } else {
      const values: Record<string, string> = {
        items: page.items,
        totalCount: String(page.totalCount),
        page: String(page.page),
        size: String(page.size),
        pageCount: String(page.pageCount),
      };
      holder.text = `{${shape.pageKeys.map(([key, field]) => `"${key}":${values[field]}`).join(',')}}`;
    }
    return { data: { [shape.key]: placeholder } };
  });
}

/** A page's items as the JSON array PostgreSQL wrote (see pageFromPostgres), and its total. */
export interface RenderedPage {
  items: string;
  totalCount: number;
}

/**
 * The page of a page operation with its items written by PostgreSQL with `rendering`'s keys (an
 * edge's shape of the records): as one JSON array with its total (`pageFromPostgres`), or as
 * lines (`linesFromPostgres`, an export's chunk; the operation's page must be sorted by id); or
 * the root field's errors. Undefined when the rendering asks for something only execution gives (a
 * computed field, a conversion SQL does not know): the caller then runs the operation as always.
 * `check`: the request's token check, carried by the page's statement (src/auth/carried-token-check.ts).
 */
export const pageFromPostgres = (given: Given, rendering: Rendering, check?: Companion) =>
  answered<RenderedPage>(given, rendering, { check }, (_, { answer }) =>
    answer ? { items: answer.items, totalCount: answer.totalCount } : undefined,
  );

export const linesFromPostgres = (given: Given, rendering: Rendering) =>
  answered<AnswerLines>(given, rendering, { lines: true }, (_, request) => request.answerLines);
