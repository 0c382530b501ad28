// Copies of a customer's data that the service keeps beside the records
// (docs/decisions.md#erasing-a-customer): stored Idempotency-Key answers here, bulk operations'
// lines and results in erased-bulk.ts. Both find the copies about the person by the REST path they
// were written to or by an e-mail address of theirs in the text, and erase a REST answer as its
// record is erased (one function, erasedRestAnswer), so a replay, a result and the record all show
// the same.
import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import { type ErasedKind, eraseCustomerRecord, erasedEmail, eraseOrderData, isObject } from './erased-data.js';
import { containsPattern } from './text-match.js';

type Json = Record<string, unknown>;

/** The customer an order record (REST or GraphQL shape, or an order event's data) shows. */
export const customerIdOf = (data: Json) => (data.customer as { id?: unknown } | undefined)?.id;

/** Whose data an erasure takes out of the copies. */
export interface ErasedPerson {
  /** The customer. */
  id: number;
  /** Its orders now: what writes to them set is its data. */
  orders: readonly number[];
  /**
   * Those and the orders it placed or had that moved to another customer: a copy of one of these
   * records that shows the customer as the order's (its `customer.id`) is from its time.
   */
  everOrders: readonly number[];
  /** Its e-mail addresses, the record's and any its orders and events held, in lower case. */
  emails: ReadonlySet<string>;
}

/**
 * SQL over a REST path expression (`/customers/7`, `/api/v1/orders/9/address?fields=id`): whether
 * it names the customer's record or one of `everOrders`. Binds [id, everOrders]. The id is compared
 * as numeric, so a path with more digits than an int holds is no error.
 */
export const namesRecordSql = (path: string) =>
  `(substring(${path} from '/customers/(\\d+)(?:[/?]|$)')::numeric = ?
    or substring(${path} from '/orders/(\\d+)(?:[/?]|$)')::numeric = any(?::int[]))`;

/** SQL over a text expression: whether it holds one of the person's e-mail addresses. Binds [patterns]. */
export const holdsEmailSql = (text: string) => `lower(${text}) like any(?::text[])`;

/** The values namesRecordSql and holdsEmailSql bind, in that order. */
export const copyParams = (person: ErasedPerson) => [
  person.id,
  person.everOrders,
  [...person.emails].map(containsPattern),
];

/** The record a REST path names first (`/orders/9/fulfilments` names order 9), if any. */
export function recordOfPath(path: string): { kind: ErasedKind; id: number } | undefined {
  const match = /\/(customers|orders)\/(\d+)(?:[/?]|$)/.exec(path);
  return match ? { kind: match[1] === 'customers' ? 'customer' : 'order', id: Number(match[2]) } : undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An address as a whole: not inside a longer one. `ann@x.com` is in `joann@x.com`,
 * `o'ann@x.com` and `ann@x.com.au`, and `ann@x.co` in `ann@x.com`, each another person's address.
 * Before it: no letter, digit, `.`, `_`, `%`, `+` or `-`, nor another character an address may hold
 * (`'`, `=`, `&`, …) right after one of those; so a quote, `=` or brace that opens a token still lets
 * it be found (`mail='ann@x.com'`), as does a text escape (`\n` in a GraphQL document's string).
 * After it, none its domain may hold (a dot only when a label follows it: `ann@x.com.` ends a
 * sentence).
 */
const wholeAddress = (email: string) =>
  new RegExp(
    "(?:(?<=\\\\[nrtbf])|(?<![\\w.%+-])(?<![\\w.%+-][!#$%&'*/=?^`{|}~]))" +
      `${escapeRegExp(email)}(?![\\w-]|\\.[\\w-])`,
    'gi',
  );

/** A text (a GraphQL document) with each of the person's e-mail addresses, in any case, replaced by the erased one. */
export function withErasedEmails(person: ErasedPerson, text: string): string {
  for (const email of person.emails) text = text.replace(wholeAddress(email), erasedEmail(person.id));
  return text;
}

/**
 * A JSON text with the person's addresses erased in its string values and its object keys (a
 * json metafield keyed by address), where an address's neighbours are characters, not escapes
 * (`"Contact:\\nann@x.com"` holds one after a newline). The text comes back as it was when nothing
 * changed.
 */
export function withErasedEmailsInJson(person: ErasedPerson, json: string): string {
  let changed = false;
  const erased = (text: string) => {
    const after = withErasedEmails(person, text);
    changed ||= after !== text;
    return after;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return erased(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [erased(key), walk(item)]));
  };
  const value = walk(JSON.parse(json));
  return changed ? JSON.stringify(value) : json;
}

/**
 * A stored REST answer (`{…, "body": …}`: an Idempotency-Key's answer, a bulk line's result) of a
 * write to `path`, erased: a body that is the customer's record under `/customers/<id>`, or an
 * order shown as the customer's under `/orders/<id>` (or, not showing its customer, one of the
 * customer's orders now), is erased as the record is; then any of the person's e-mail addresses
 * left in it (a refusal quoting one) becomes the erased address.
 */
export function erasedRestAnswer(person: ErasedPerson, path: string, answer: Json): string {
  const record = recordOfPath(path);
  const body = answer.body;
  if (record && isObject(body)) {
    // A body cut down by `fields` may not show whose it is: then the record named is, as it is now.
    const customer = 'customer' in body ? customerIdOf(body) : person.orders.includes(record.id) && person.id;
    if (record.kind === 'customer' && (body.id ?? record.id) === person.id) eraseCustomerRecord(body, person.id);
    if (record.kind === 'order' && customer === person.id) eraseOrderData(body, person.id);
  }
  return withErasedEmailsInJson(person, JSON.stringify(answer));
}

/**
 * Stored Idempotency-Key answers are copies of records in their REST shape: a retry must not
 * replay the erased data. Erased by erasedRestAnswer.
 */
export async function eraseStoredAnswers(em: EntityManager, person: ErasedPerson): Promise<void> {
  const rows = await runPrepared<{ id: number; path: string; response: string }>(
    em,
    `select id, path, response::text as response from idempotency_key where response is not null
       and (${namesRecordSql('path')} or ${holdsEmailSql('response::text')})`,
    copyParams(person),
  );
  const changed: { id: number; response: string }[] = [];
  for (const row of rows) {
    const response = erasedRestAnswer(person, row.path, JSON.parse(row.response) as Json);
    if (response !== row.response) changed.push({ id: row.id, response });
  }
  if (changed.length) {
    await runPrepared(
      em,
      'update idempotency_key k set response = x.response::json from unnest(?::int[], ?::text[]) x(id, response) ' +
        'where k.id = x.id',
      [changed.map((row) => row.id), changed.map((row) => row.response)],
    );
  }
}
