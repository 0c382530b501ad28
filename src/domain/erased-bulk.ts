// Bulk operations' copies of a customer's data (docs/decisions.md#erasing-a-customer): each line as
// it was uploaded (`bulk_line.input`: a REST request, or the variables of the operation's GraphQL
// mutation) and the answer it got (`bulk_result.answer`, served by GET /bulk-operations/{id}/results
// for BULK_RETENTION_DAYS). A line about the person (a write to its record or to one of its orders)
// gets its input erased as eraseWrittenData erases a write, keeping the JSON a valid line (one not
// yet run still runs, and meets the erased customer's 409), and its answer erased as the record is;
// any other line or answer holding one of its e-mail addresses gets the erased address.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type FieldNode, Kind, parse, valueFromASTUntyped } from 'graphql';
import { runPrepared } from '../db/prepared-statements.js';
import {
  copyParams,
  customerIdOf,
  type ErasedPerson,
  erasedRestAnswer,
  holdsEmailSql,
  namesRecordSql,
  recordOfPath,
  withErasedEmails,
  withErasedEmailsInJson,
} from './erased-copies.js';
import { type ErasedKind, eraseWrittenData, isObject } from './erased-data.js';

type Json = Record<string, unknown>;

/**
 * How the schema's mutations name the records they write: an order by `orderId`, or by `id` in a
 * field named for orders (`updateOrderAddress`, `changeOrderCustomer`); a customer by `id` in a
 * field named for customers (`updateCustomer`); `createOrder` the customer placing it by its input's
 * `customerId`. A field that makes a record (`createCustomer`) names it by the id its answer shows.
 */
const ORDER_FIELD = /Order/;
const CUSTOMER_FIELD = /Customer$/;

/** The one field of a GraphQL operation's mutation (checked when the operation was made). */
function mutationField(source: string): FieldNode | undefined {
  try {
    const operation = parse(source).definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
    const field = operation?.selectionSet.selections[0];
    return field?.kind === Kind.FIELD ? field : undefined;
  } catch {
    return undefined;
  }
}

/** An id as a line gives it (a number, or digits GraphQL would refuse as an Int but the line holds). */
const idOf = (value: unknown) =>
  typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;

/** An argument's value (a literal or a line's variable), or undefined when the field has none. */
function argument(field: FieldNode, name: string, variables: Json): unknown {
  const node = field.arguments?.find((arg) => arg.name.value === name)?.value;
  return node ? valueFromASTUntyped(node, variables) : undefined;
}

/**
 * Whether a GraphQL line writes the customer's record or one of its orders, and which: by the
 * field's arguments with the line's variables, or by the record the line made (`shown`, its answer).
 */
function graphqlKind(field: FieldNode, variables: Json, shown: unknown, person: ErasedPerson): ErasedKind | undefined {
  const name = field.name.value;
  const isOrder = (value: unknown) => person.orders.includes(idOf(value) ?? -1);
  const orderId =
    argument(field, 'orderId', variables) ?? (ORDER_FIELD.test(name) ? argument(field, 'id', variables) : undefined);
  if (orderId !== undefined) return isOrder(orderId) ? 'order' : undefined;
  const customerId = CUSTOMER_FIELD.test(name) ? argument(field, 'id', variables) : undefined;
  if (customerId !== undefined) return idOf(customerId) === person.id ? 'customer' : undefined;
  const input = argument(field, 'input', variables);
  if (isObject(input) && input.customerId !== undefined)
    return idOf(input.customerId) === person.id ? 'order' : undefined;
  const made = isObject(shown) ? shown.id : undefined;
  if (CUSTOMER_FIELD.test(name) && idOf(made) === person.id) return 'customer';
  if (ORDER_FIELD.test(name) && isOrder(made)) return 'order';
  // A customer made with one of its addresses: the line that made the person's record, or tried to.
  const email = isObject(input) && typeof input.email === 'string' ? input.email.toLowerCase() : undefined;
  return CUSTOMER_FIELD.test(name) && email && person.emails.has(email) ? 'customer' : undefined;
}

/**
 * Where a GraphQL operation's lines may name the person's records, for the statement that finds
 * them: the variables its field's id arguments take (`["id"]`, `["input", "customerId"]`), and the
 * key of its answer (`data.<key>.id`, a record it made). `all` when a literal argument names one.
 */
function graphqlSearch(operation: number, field: FieldNode, person: ErasedPerson) {
  const paths: { operation: number; variable: string[] | null; made: string | null }[] = [
    { operation, variable: null, made: field.alias?.value ?? field.name.value },
  ];
  for (const arg of field.arguments ?? []) {
    if (!['id', 'orderId', 'input'].includes(arg.name.value)) continue;
    const value = arg.value;
    if (value.kind === Kind.VARIABLE)
      paths.push({
        operation,
        variable: arg.name.value === 'input' ? [value.name.value, 'customerId'] : [value.name.value],
        made: null,
      });
    else if (value.kind === Kind.OBJECT) {
      const customer = value.fields.find((f) => f.name.value === 'customerId')?.value;
      if (customer?.kind === Kind.VARIABLE) paths.push({ operation, variable: [customer.name.value], made: null });
    }
  }
  const all = graphqlKind(field, {}, undefined, person) !== undefined;
  return { paths, all };
}

interface LineRow {
  upload_id: number;
  line: number;
  operation_id: number | null;
  input: string;
  answer: string | null;
}

/** A line (and its answer) about the person, erased; the texts to write, those that changed. */
function erasedLine(row: LineRow, field: FieldNode | undefined, rest: boolean, person: ErasedPerson) {
  const input = JSON.parse(row.input) as unknown;
  const answer = row.answer === null ? null : (JSON.parse(row.answer) as Json);
  const before = { input: JSON.stringify(input), answer: answer && JSON.stringify(answer) };
  let erasedInput: unknown = input;
  let erasedAnswer = answer && JSON.stringify(answer);
  if (rest && isObject(input)) {
    const path = typeof input.path === 'string' ? input.path : '';
    const record = recordOfPath(path);
    const own =
      record?.kind === 'customer' ? record.id === person.id : record ? person.orders.includes(record.id) : false;
    if (own && record && 'body' in input)
      erasedInput = { ...input, body: eraseWrittenData(input.body, person.id, record.kind) };
    if (answer) erasedAnswer = erasedRestAnswer(person, path, answer);
  } else if (field?.name.value === 'metafieldsSet' && isObject(input)) {
    const erased = erasedMetafieldsLine(field, input, answer, person);
    erasedInput = erased.input;
    erasedAnswer = erased.answer;
  } else if (field && isObject(input)) {
    const data = answer && isObject(answer.data) ? answer.data : undefined;
    const key = field.alias?.value ?? field.name.value;
    const shown = data && Object.hasOwn(data, key) ? data[key] : undefined;
    const kind = graphqlKind(field, input, shown, person);
    if (kind) erasedInput = eraseWrittenData(input, person.id, kind);
    const shownKind = kind ?? (isObject(shown) && customerIdOf(shown) === person.id ? 'order' : undefined);
    if (answer && data && shownKind)
      erasedAnswer = JSON.stringify({ ...answer, data: eraseWrittenData(data, person.id, shownKind) });
  }
  const inputText = withErasedEmailsInJson(person, JSON.stringify(erasedInput));
  const answerText = erasedAnswer === null ? null : withErasedEmailsInJson(person, erasedAnswer);
  return {
    input: inputText !== before.input ? inputText : undefined,
    answer: answerText !== null && answerText !== before.answer ? answerText : undefined,
  };
}

/** A line's list of metafieldsSet entries (`l.input -> m.variable`) holds one on the person's records. */
const ENTRY_OF_PERSON = `json_typeof(l.input -> m.variable) = 'array' and exists (
  select 1 from json_array_elements(l.input -> m.variable) e
  where (e ->> 'ownerType' = 'CUSTOMER' and e ->> 'ownerId' = ?)
    or (e ->> 'ownerType' = 'ORDER' and e ->> 'ownerId' = any(?::text[])))`;

/**
 * A `metafieldsSet` line: the values its entries set on the person's record or on an order it has
 * or had, emptied in the line's variables (the entries given as one variable) and in its answer
 * (the values written, in the entries' order); its other entries stay as they were.
 */
function erasedMetafieldsLine(field: FieldNode, input: Json, answer: Json | null, person: ErasedPerson) {
  const entries = argument(field, 'metafields', input);
  const about = (entry: unknown) =>
    isObject(entry) &&
    ((entry.ownerType === 'CUSTOMER' && idOf(entry.ownerId) === person.id) ||
      (entry.ownerType === 'ORDER' && person.everOrders.includes(idOf(entry.ownerId) ?? -1)));
  const text = answer && JSON.stringify(answer);
  if (!Array.isArray(entries) || !entries.some(about)) return { input, answer: text };
  // The answer's keys of `value` (aliases included).
  const shownValues = (field.selectionSet?.selections ?? []).flatMap((s) =>
    s.kind === Kind.FIELD && s.name.value === 'value' ? [s.alias?.value ?? 'value'] : [],
  );
  const emptiedEntry = (item: Json, keys: string[]) =>
    Object.fromEntries(Object.entries(item).map(([k, v]) => [k, keys.includes(k) ? '' : v]));
  const emptied = (list: unknown, keys: string[]) =>
    Array.isArray(list)
      ? list.map((item, i) => (about(entries[i]) && isObject(item) ? emptiedEntry(item, keys) : item))
      : list;
  const node = field.arguments?.find((arg) => arg.name.value === 'metafields')?.value;
  const erasedInput =
    node?.kind === Kind.VARIABLE ? { ...input, [node.name.value]: emptied(input[node.name.value], ['value']) } : input;
  const data = answer && isObject(answer.data) ? answer.data : undefined;
  const key = field.alias?.value ?? field.name.value;
  const erasedAnswer = data
    ? JSON.stringify({ ...answer, data: { ...data, [key]: emptied(data[key], shownValues) } })
    : text;
  return { input: erasedInput, answer: erasedAnswer };
}

/**
 * A `\u` escape of a NUL or of an unpaired surrogate in JSON text: PostgreSQL keeps it in a `json`
 * column, but its JSON functions refuse to read the string (22P05). Uploads refuse such lines
 * (src/bulk/uploads.ts); lines kept before they did are read by their text alone (holdsEmailSql).
 */
const UNREADABLE_ESCAPE = [
  String.raw`\\u0000`,
  String.raw`\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])`,
  String.raw`(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}`,
].join('|');

/** `condition` (reading the strings of `json`) where they are readable, else false; CASE keeps the order. */
const whenReadable = (json: string, condition: string) =>
  `(case when ${json} !~* '${UNREADABLE_ESCAPE}' then ${condition} else false end)`;

/**
 * Erases the person from bulk operations in the erasure's transaction: finds the lines that write
 * its record or its orders (a REST line by its path, a GraphQL line by its mutation's arguments and
 * variables) and the lines and answers holding one of its e-mail addresses, erases them
 * (erasedLine) and writes back those that changed; and its addresses in GraphQL operations'
 * mutation documents. The search reads every line kept: erasure is rare, and a line's input is
 * whatever its uploader wrote, with no index to find a person by.
 */
export async function eraseBulkOperations(em: EntityManager, person: ErasedPerson): Promise<void> {
  const operations = await runPrepared<{ id: number; mutation: string }>(
    em,
    'select id, mutation from bulk_operation where mutation is not null',
    [],
  );
  const fields = new Map<number, FieldNode | undefined>();
  const paths: ReturnType<typeof graphqlSearch>['paths'] = [];
  const whole: number[] = [];
  const entryLists: { operation: number; variable: string }[] = [];
  const mutations: { id: number; mutation: string }[] = [];
  for (const { id, mutation } of operations) {
    const field = mutationField(mutation);
    fields.set(id, field);
    const erased = withErasedEmails(person, mutation);
    if (erased !== mutation) mutations.push({ id, mutation: erased });
    if (!field) continue;
    // Its entries name their records in the line's variables: the lines whose entries name the
    // person's records are found by the statement (entries given otherwise: every line is read).
    if (field.name.value === 'metafieldsSet') {
      const list = field.arguments?.find((arg) => arg.name.value === 'metafields')?.value;
      if (list?.kind === Kind.VARIABLE) entryLists.push({ operation: id, variable: list.name.value });
      else whole.push(id);
    }
    const search = graphqlSearch(id, field, person);
    paths.push(...search.paths);
    if (search.all) whole.push(id);
  }
  const ids = [person.id, ...person.everOrders].map(String);
  const [id, everOrders, emails] = copyParams(person);
  const rows = await runPrepared<LineRow & { form: string }>(
    em,
    `select l.upload_id, l.line, u.form, o.id as operation_id, l.input::text as input, r.answer
     from bulk_line l join bulk_upload u on u.id = l.upload_id
     left join bulk_operation o on o.upload_id = l.upload_id
     left join bulk_result r on r.operation_id = o.id and r.line = l.line
     where (u.form = 'rest' and ${whenReadable('l.input::text', namesRecordSql("l.input->>'path'"))})
       or ${holdsEmailSql('l.input::text')} or ${holdsEmailSql('r.answer')} or o.id = any(?::int[])
       or (o.mutation is not null and exists (
         select 1 from jsonb_to_recordset(?::jsonb) t(operation int, variable text[], made text)
         where t.operation = o.id and (${whenReadable('l.input::text', '(l.input #>> t.variable) = any(?::text[])')}
           or ${whenReadable('r.answer', "(r.answer::json -> 'data' -> t.made ->> 'id') = any(?::text[])")})))
       or (o.mutation is not null and exists (
         select 1 from jsonb_to_recordset(?::jsonb) m(operation int, variable text)
         where m.operation = o.id and ${whenReadable('l.input::text', ENTRY_OF_PERSON)}))`,
    [
      id,
      everOrders,
      emails,
      emails,
      whole,
      JSON.stringify(paths),
      ids,
      ids,
      JSON.stringify(entryLists),
      String(person.id),
      person.everOrders.map(String),
    ],
  );
  const inputs: { upload: number; line: number; text: string }[] = [];
  const answers: { operation: number; line: number; text: string }[] = [];
  for (const row of rows) {
    const field = row.operation_id === null ? undefined : fields.get(row.operation_id);
    const erased = erasedLine(row, field, row.form === 'rest', person);
    if (erased.input !== undefined) inputs.push({ upload: row.upload_id, line: row.line, text: erased.input });
    if (erased.answer !== undefined && row.operation_id !== null)
      answers.push({ operation: row.operation_id, line: row.line, text: erased.answer });
  }
  if (inputs.length)
    await runPrepared(
      em,
      `update bulk_line l set input = x.input::json
       from unnest(?::int[], ?::int[], ?::text[]) x(upload_id, line, input)
       where l.upload_id = x.upload_id and l.line = x.line`,
      [inputs.map((row) => row.upload), inputs.map((row) => row.line), inputs.map((row) => row.text)],
    );
  if (answers.length)
    await runPrepared(
      em,
      `update bulk_result r set answer = x.answer
       from unnest(?::int[], ?::int[], ?::text[]) x(operation_id, line, answer)
       where r.operation_id = x.operation_id and r.line = x.line`,
      [answers.map((row) => row.operation), answers.map((row) => row.line), answers.map((row) => row.text)],
    );
  if (mutations.length)
    await runPrepared(
      em,
      'update bulk_operation o set mutation = x.mutation from unnest(?::int[], ?::text[]) x(id, mutation) ' +
        'where o.id = x.id',
      [mutations.map((row) => row.id), mutations.map((row) => row.mutation)],
    );
}
