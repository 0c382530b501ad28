import validator from 'validator';
import { unstorableText } from './input-limits.js';

/**
 * The types of a metafield (docs/decisions.md#custom-data-metafields), Shopify's names, and what a
 * value of each is. A value is kept as one text, Shopify's convention for `Metafield.value`, in one
 * form per value (its stored form): what GraphQL shows, what an exact search compares, and what
 * REST's typed JSON is made from (SQL in src/resolvers/metafield-relations.ts: integers, booleans
 * and json as JSON, every other type as a JSON string). A value reaches the domain in one of two
 * ways, and both end in the stored form or a problem: as Shopify's text (`metafieldsSet`, the
 * GraphQL filters) or as REST's typed JSON (the PATCH bodies, the search bodies).
 */
export const METAFIELD_TYPES = [
  'single_line_text_field',
  'multi_line_text_field',
  'number_integer',
  'number_decimal',
  'boolean',
  'date',
  'date_time',
  'url',
  'json',
] as const;

export type MetafieldType = (typeof METAFIELD_TYPES)[number];

export const isMetafieldType = (type: string): type is MetafieldType =>
  (METAFIELD_TYPES as readonly string[]).includes(type);

/** The types whose REST value is the stored text read as JSON (the others are JSON strings). */
export const JSON_VALUED_TYPES: readonly MetafieldType[] = ['number_integer', 'boolean', 'json'];

/** The most bytes (UTF-8) of a value in its stored form. */
export const METAFIELD_VALUE_MAX_BYTES = 64 * 1024;

/** Digits of a number_decimal before and after its point (Shopify's range, ±9999999999999.999999999). */
const DECIMAL_WHOLE_DIGITS = 13;
const DECIMAL_FRACTION_DIGITS = 9;

/** The stored form of a value, or why it is not one of its type. */
export type StoredValue = { value: string } | { problem: string };

const problem = (text: string): StoredValue => ({ problem: text });

function integer(text: string): StoredValue {
  if (!/^[+-]?\d+$/.test(text)) return problem('must be a whole number');
  const value = BigInt(text);
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER))
    return problem(`must be a whole number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`);
  return { value: value.toString() };
}

/** A decimal in its shortest exact text: no sign for zero or plus, no leading or trailing zeros. */
function decimal(text: string): StoredValue {
  const match = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return problem('must be a decimal number such as 12.50 (digits, an optional point and digits)');
  const whole = match[2].replace(/^0+(?=\d)/, '');
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  if (whole.length > DECIMAL_WHOLE_DIGITS || fraction.length > DECIMAL_FRACTION_DIGITS)
    return problem(
      `must have at most ${DECIMAL_WHOLE_DIGITS} digits before the point and ${DECIMAL_FRACTION_DIGITS} after it`,
    );
  const zero = whole === '0' && fraction === '';
  const sign = match[1] === '-' && !zero ? '-' : '';
  return { value: `${sign}${whole}${fraction ? `.${fraction}` : ''}` };
}

function boolean(text: string): StoredValue {
  return text === 'true' || text === 'false' ? { value: text } : problem('must be true or false');
}

function date(text: string): StoredValue {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && validator.isISO8601(text, { strict: true })
    ? { value: text }
    : problem('must be a date as YYYY-MM-DD (ISO 8601)');
}

/**
 * A date and time, in UTC as ISO 8601 (`2025-03-01T09:30:00Z`, milliseconds only when there are
 * any); one without a zone is UTC. Finer fractions (Python's six digits, Java's nine) are kept to
 * the millisecond, as a Date holds them. Its UTC form must itself be one this type takes (a
 * four-digit year), so what a GET shows can be written back.
 */
function dateTime(text: string): StoredValue {
  const shape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
  if (!shape.test(text) || !validator.isISO8601(text, { strict: true, strictSeparator: true }))
    return problem('must be a date and time in ISO 8601, such as 2025-03-01T09:30:00Z');
  const millis = text.replace(/(\.\d{3})\d+/, '$1');
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(millis) ? millis : `${millis}Z`;
  const time = new Date(zoned);
  if (Number.isNaN(time.getTime())) return problem('must be a date and time in ISO 8601');
  const utc = time.toISOString().replace('.000Z', 'Z');
  return /^\d{4}-/.test(utc) ? { value: utc } : problem('must fall within the years 0000 to 9999 in UTC');
}

function url(text: string): StoredValue {
  const ok = validator.isURL(text, {
    protocols: ['http', 'https'],
    require_protocol: true,
    require_valid_protocol: true,
    require_tld: false,
    allow_underscores: true,
  });
  return ok ? { value: text } : problem('must be an http or https URL');
}

function json(text: string): StoredValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return problem('must be JSON');
  }
  return jsonValue(parsed);
}

/** JSON as one line with no spaces (JSON.stringify's): what REST shows, and what a search compares. */
function jsonValue(parsed: unknown): StoredValue {
  if (parsed === null) return problem('must not be the JSON null: delete the metafield instead');
  const unkept = unkeptInJson(parsed);
  return unkept ? problem(unkept) : { value: JSON.stringify(parsed) };
}

/** Levels of objects and arrays a json value may nest. */
const JSON_LEVELS = 30;

/**
 * What of a JSON value could not be kept as it was given, if anything: a string or key that
 * PostgreSQL cannot hold as text (a NUL, an unpaired surrogate, written `\u0000` or `\ud800` in the
 * JSON text: the value's event, whose data is jsonb, would refuse it), a whole number past 2^53,
 * which JSON's numbers (doubles) would round (an ERP's 64-bit id: send it as a string), or nesting
 * past JSON_LEVELS.
 */
function unkeptInJson(value: unknown, depth = 0): string | undefined {
  const unstorable = (what: string, text: string) => {
    const problem = unstorableText(text);
    return problem && `holds a ${what} that ${problem}`;
  };
  if (typeof value === 'string') return unstorable('string', value);
  if (typeof value === 'number') {
    // Past a double's range (1e400) JSON.parse gives Infinity, which JSON writes as null.
    if (!Number.isFinite(value)) return 'holds a number past what JSON numbers can hold: send it as a string';
    return Number.isInteger(value) && !Number.isSafeInteger(value)
      ? `holds a whole number past ${Number.MAX_SAFE_INTEGER}, which JSON numbers cannot keep exactly: ` +
          'send it as a string'
      : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  // As deep as a REST body lets a metafield's value nest (its 32 levels less the body's two,
  // src/domain/input-limits.ts), so both roads take the same values.
  if (depth >= JSON_LEVELS) return `nests deeper than ${JSON_LEVELS} levels`;
  for (const [key, inner] of Object.entries(value)) {
    const problem = (!Array.isArray(value) && unstorable('key', key)) || unkeptInJson(inner, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

function text(value: string, singleLine: boolean): StoredValue {
  if (!value.trim()) return problem('must not be blank');
  if (singleLine && /[\r\n]/.test(value)) return problem('must be one line (no line breaks)');
  return { value };
}

const FROM_TEXT: Record<MetafieldType, (text: string) => StoredValue> = {
  single_line_text_field: (value) => text(value, true),
  multi_line_text_field: (value) => text(value, false),
  number_integer: integer,
  number_decimal: decimal,
  boolean,
  date,
  date_time: dateTime,
  url,
  json,
};

/** Within the size limit, once in its stored form. */
function sized(stored: StoredValue): StoredValue {
  if ('problem' in stored) return stored;
  return Buffer.byteLength(stored.value, 'utf8') > METAFIELD_VALUE_MAX_BYTES
    ? problem(`must be at most ${METAFIELD_VALUE_MAX_BYTES} bytes (64 KiB)`)
    : stored;
}

/** A value given as Shopify's text (`metafieldsSet`, a GraphQL filter) in its stored form. */
export function storedFromText(type: MetafieldType, value: string): StoredValue {
  // A text far over the limit is refused before it is parsed; JSON is measured once compact, so
  // its spaces and line breaks may take it over the limit as given.
  if (value.length > METAFIELD_VALUE_MAX_BYTES * (type === 'json' ? 4 : 1)) return sized({ value });
  return sized(FROM_TEXT[type](value));
}

/**
 * A value given as REST shows it (typed JSON, docs/decisions.md#custom-data-metafields) in its
 * stored form: integers and booleans as JSON (or their text), decimals as strings (or JSON
 * numbers), json as the JSON itself, the other types as strings.
 */
export function storedFromJson(type: MetafieldType, value: unknown): StoredValue {
  if (type === 'json') return sized(jsonValue(value));
  if (typeof value === 'string') return storedFromText(type, value);
  switch (type) {
    case 'number_integer':
      return typeof value === 'number' && Number.isInteger(value)
        ? storedFromText(type, String(value))
        : problem('must be a whole number');
    case 'number_decimal':
      // A JSON number of more digits than a double keeps exactly (9999999999999.999 arrives as
      // …998) was rounded before it came here: refused, asking for the exact text.
      return typeof value === 'number' && Number.isFinite(value) && significantDigits(value) <= 15
        ? storedFromText(type, decimalTextOf(value))
        : problem('must be a decimal number, as a string such as "12.50" (a JSON number of 15 digits at most)');
    case 'boolean':
      return typeof value === 'boolean' ? { value: String(value) } : problem('must be true or false');
    default:
      return problem('must be a string');
  }
}

/** The significant digits of a number as JavaScript prints it (the shortest text that reads back as it). */
function significantDigits(value: number): number {
  const digits = Math.abs(value).toExponential().replace(/e.*$/, '').replace('.', '');
  return digits.length;
}

/**
 * A JSON number as decimal text: as JavaScript prints it (12.5), and a small one it prints with an
 * exponent (1e-7) as its digits, when they fit the fraction's digits; anything else is left as
 * printed, for decimal() to refuse (1e21, 1e-10).
 */
function decimalTextOf(value: number): string {
  const printed = String(value);
  if (!printed.includes('e') || Math.abs(value) >= 1) return printed;
  const fixed = value.toFixed(DECIMAL_FRACTION_DIGITS);
  return Number(fixed) === value ? fixed : printed;
}

/** A stored value as REST shows it (the same as the SQL of src/resolvers/metafield-relations.ts). */
export function restValueOf(type: MetafieldType, stored: string): unknown {
  return JSON_VALUED_TYPES.includes(type) ? JSON.parse(stored) : stored;
}

/** Namespaces and keys: 1–64 of a-z, 0-9, `_` and `-`. */
export const METAFIELD_NAME = /^[a-z0-9_-]{1,64}$/;
export const METAFIELD_NAME_RULE = 'must be 1 to 64 characters of a-z, 0-9, _ and -';
