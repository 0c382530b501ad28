// The text of an SQL statement as a trace records it (docs/operations.md#traces): the statements
// MikroORM sends carry their values inlined (`… "notes" = 'a customer''s note' where "o0"."id" = 1`),
// so instrumentation-pg's `db.query.text` would hold customer data. Its request hook replaces that
// attribute with the text this function gives: every literal is `?`, as the semantic conventions
// say (https://opentelemetry.io/docs/specs/semconv/db/database-spans/#sanitization-of-dbquerytext).

/** An identifier or key word (`r0`, `orders`, `set_config`, `a$b`): copied as it is, digits and all. */
const WORD = /[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*/y;
/** A `$n` placeholder of a statement sent with its values apart: copied. */
const PLACEHOLDER = /\$\d+/y;
/** The opening tag of a dollar-quoted string: `$$` or `$tag$`. */
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/y;
/** A numeric constant: `42`, `1_000`, `3.14`, `.5`, `1e-3`, `0x1F`, `0o17`, `0b101`. */
const NUMBER =
  /0[xX][\da-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*(?:\.(?:\d[\d_]*)?)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/y;
/** The prefixes a quoted string may carry: E (C-style escapes), B and X (bit strings), N (national). */
const STRING_PREFIX = /^[eEbBxXnN]$/;

function matchAt(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

/** Where the single-quoted string opening at `at` ends (past its closing quote), or the text's end. */
function endOfQuoted(text: string, at: number, backslashEscapes: boolean): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (backslashEscapes && c === '\\') i++;
    else if (c === "'") {
      if (text[i + 1] !== "'") return i + 1;
      i++; // '' is a quote inside the string
    }
  }
  return text.length;
}

/** Where the quoted identifier opening at `at` ends (`""` is a quote inside it). */
function endOfIdentifier(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '"') {
      if (text[i + 1] !== '"') return i + 1;
      i++;
    }
  }
  return text.length;
}

/** Where the block comment opening at `at` ends (PostgreSQL's nest). */
function endOfComment(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length - 1; i++) {
    if (text[i] === '/' && text[i + 1] === '*') {
      depth++;
      i++;
    } else if (text[i] === '*' && text[i + 1] === '/') {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/**
 * `text` with each literal replaced by `?`: quoted strings (with `''` inside, E'…' with backslash
 * escapes, B'…', X'…', N'…', U&'…', dollar-quoted `$$…$$` and `$tag$…$tag$`) and numeric constants.
 * Identifiers and key words (`r0`, `"o0"`, `true`, `null`), `$n` placeholders, casts (`::text`),
 * operators and comments stay as they are. A string left open runs to the end and is `?` too.
 */
export function sqlWithoutValues(text: string): string {
  let out = '';
  let copied = 0; // text[copied, i) is still to be copied as it is
  let i = 0;
  const literal = (from: number, to: number) => {
    out += `${text.slice(copied, from)}?`;
    copied = to;
    i = to;
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "'") {
      literal(i, endOfQuoted(text, i, false));
    } else if (c === '"') {
      i = endOfIdentifier(text, i);
    } else if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (c === '/' && next === '*') {
      i = endOfComment(text, i);
    } else if (c === '$') {
      const placeholder = matchAt(PLACEHOLDER, text, i);
      const tag = placeholder ? undefined : matchAt(DOLLAR_TAG, text, i);
      if (placeholder) i += placeholder.length;
      else if (tag) {
        const close = text.indexOf(tag, i + tag.length);
        literal(i, close === -1 ? text.length : close + tag.length);
      } else i++;
    } else if ((c >= '0' && c <= '9') || (c === '.' && next >= '0' && next <= '9')) {
      literal(i, i + (matchAt(NUMBER, text, i)?.length ?? 1));
    } else {
      const word = matchAt(WORD, text, i);
      if (!word) i++;
      else if (text[i + word.length] === "'" && STRING_PREFIX.test(word)) {
        literal(i, endOfQuoted(text, i + 1, word === 'e' || word === 'E'));
      } else if ((word === 'U' || word === 'u') && text.startsWith("&'", i + 1)) {
        literal(i, endOfQuoted(text, i + 2, false));
      } else i += word.length;
    }
  }
  return out + text.slice(copied);
}
