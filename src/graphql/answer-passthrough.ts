import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getArgumentValues,
  getVariableValues,
  isNonNullType,
} from 'graphql';
import type { Companion } from '../db/prepared-statements.js';
import {
  type AnswerLines,
  type AnswerPage,
  type AnswerRecord,
  answerPages,
  answerRecords,
} from '../reads/read-query.js';
import type { GraphQLContext } from '../resolvers/context.js';
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
 * record>}}` around PostgreSQL's text. The root field's own resolver still runs
 * (its `@Authorized` scope, input guard, argument validation, filters, page bounds, a missing
 * record's NOT_FOUND), so only the read's statement differs; its errors are reported as the
 * executor reports a root field's. Anything else takes graphql-jit's road (compiled-execution.ts).
 *
 * Which operations qualify, and their item's SQL, is passthrough-shapes.ts; the SQL of the JSON is
 * object-sql.ts and leaf-sql.ts. This file runs the root field and puts PostgreSQL's text in.
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

/** The root field's value when it ran without an error (see runRootField). */
interface Ran {
  value: unknown;
}

/**
 * Runs the shape's root field (its resolver: scope, guard, arguments, filters, page bounds) with
 * `request` for its readPage or readRecord: undefined when the variables or arguments do not
 * coerce (nothing ran: the normal way answers), else the field's error as compiled execution
 * reports it, or the value the resolver returned.
 */
async function runRootField(
  schema: GraphQLSchema,
  shape: PassthroughShape,
  context: GraphQLContext,
  given: Record<string, unknown> | undefined,
  request: AnswerPage & AnswerRecord,
): Promise<ExecutionResult | Ran | undefined> {
  const variables = getVariableValues(schema, shape.operation.variableDefinitions ?? [], given ?? {});
  if (variables.errors) return undefined;
  const query = schema.getQueryType()!;
  const info: GraphQLResolveInfo = {
    fieldName: shape.field.name,
    fieldNodes: [shape.node],
    returnType: shape.field.type,
    parentType: query,
    path: { prev: undefined, key: shape.key, typename: query.name },
    schema,
    fragments: {},
    rootValue: undefined,
    operation: shape.operation,
    variableValues: variables.coerced,
  };
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues(shape.field, shape.node, variables.coerced);
  } catch {
    return undefined; // nothing ran yet: the normal way answers it
  }
  const requests = shape.pageKeys ? answerPages : answerRecords;
  requests.set(context.em, request);
  try {
    return { value: await shape.field.resolve!(undefined, args, context, info) };
  } catch (error) {
    // The root field's error as compiled execution reports it (compiled-execution.ts: its path, the
    // resolver's error, no locations; the field null, or no data when it is non-null), without
    // running the field again (a statement that timed out, a refused scope, a missing record).
    const thrown = error instanceof Error ? error : new Error(String(error));
    const reported = new GraphQLError(thrown.message, { path: [shape.key], originalError: thrown, extensions: {} });
    return { data: isNonNullType(shape.field.type) ? null : { [shape.key]: null }, errors: [reported] };
  } finally {
    requests.delete(context.em);
  }
}

/** An operation as a request gives it: the schema, the document, the request's context, its variables. */
type Given = [GraphQLSchema, DocumentNode, GraphQLContext, Record<string, unknown> | undefined];

/**
 * Runs the root field of the operation's shape (`name`: the operation's name, for the response's
 * keys; or a rendering, an edge's keys of a page's records) with its read answered by PostgreSQL,
 * its items as `lines` or not, `check` riding on the read's statement (the request's token check,
 * src/auth/carried-token-check.ts); `taken` makes the result of the answered read. Undefined when
 * the operation is not one PostgreSQL answers, or its variables do not coerce: the caller then runs
 * it as always; and when `taken` finds no answer (the root field did not read through readPage or
 * readRecord), after which the document always runs the normal way. Else the root field's errors.
 */
async function answered<T>(
  [schema, document, context, given]: Given,
  name: string | null | undefined | Rendering,
  { lines = false, check }: { lines?: boolean; check?: Companion },
  taken: (shape: PassthroughShape, request: AnswerPage & AnswerRecord, value: unknown) => T | undefined,
): Promise<T | ExecutionResult | undefined> {
  const [operationName, rendering] = typeof name === 'string' || name == null ? [name] : [undefined, name];
  const { shape, forget } = cachedShape([schema, context.em.getMetadata(), document, operationName], rendering);
  if (!shape) return undefined;
  const request = { type: shape.type, selection: shape.selection, itemSql: shape.itemSql, lines, check };
  const ran = await runRootField(schema, shape, context, given, request);
  if (!ran || !('value' in ran)) return ran;
  const answer = taken(shape, request, ran.value);
  if (answer === undefined) forget();
  return answer;
}

/**
 * The result of a plain page or record operation with the page or record as PostgreSQL's text
 * (left for withAnswerText's `write`), or undefined: the caller then executes the operation as always.
 */
export async function answerFromPostgres(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  context: GraphQLContext,
  given: Record<string, unknown> | undefined,
  check?: Companion,
): Promise<ExecutionResult | undefined> {
  const holder = scope.getStore();
  if (!holder) return undefined;
  return answered([schema, document, context, given], operationName, { check }, (shape, request, value) => {
    const { record, answer: page } = request;
    if (!shape.pageKeys) {
      // The resolver must hand back the very row readRecord answered (nothing made of it).
      if (record === undefined || value !== record.row) return undefined;
      holder.text = record.text;
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
 */
export const pageFromPostgres = (...[schema, document, context, given, rendering]: [...Given, Rendering]) =>
  answered<RenderedPage>([schema, document, context, given], rendering, {}, (_, { answer }) =>
    answer ? { items: answer.items, totalCount: answer.totalCount } : undefined,
  );

export const linesFromPostgres = (...[schema, document, context, given, rendering]: [...Given, Rendering]) =>
  answered<AnswerLines>(
    [schema, document, context, given],
    rendering,
    { lines: true },
    (_, request) => request.answerLines,
  );
