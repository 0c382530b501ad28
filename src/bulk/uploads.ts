import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Pool, PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { SQL_NOW } from '../clock.js';
import { BULK_MAX_LINES } from '../domain/bulk-operation.js';
import { unstorableText } from '../domain/input-limits.js';
import { Problem } from '../rest/problem.js';

/**
 * An NDJSON upload streamed into PostgreSQL (docs/decisions.md#bulk-writes): the request body is
 * split into lines as it arrives and each line, once checked, goes to `COPY bulk_line FROM STDIN`
 * inside one transaction, so memory holds one line and one buffer of COPY text whatever the file's
 * size, and PostgreSQL's own pace holds the reading back (the copy stream's backpressure). The
 * first malformed line ends it: the transaction rolls back, nothing of the file is kept, and the
 * answer is a 400 naming the line.
 */

export interface UploadLimits {
  /** BULK_UPLOAD_MAX_BYTES: the file's size at most. */
  maxBytes: number;
  /** Lines at most (BULK_MAX_LINES). */
  maxLines?: number;
}

/**
 * A line's bytes at most: a request body's limit (1 MiB) and room for the line's method, path and
 * headers around it. A longer line is refused (413 naming it) before more of it is held.
 */
export const MAX_LINE_BYTES = 1024 * 1024 + 16 * 1024;
/** JSON nesting a line may have: far above the input limits (32, checked per line as its request is). */
const MAX_LINE_NESTING = 64;
/** COPY text handed to PostgreSQL at a time. */
const COPY_BUFFER_BYTES = 256 * 1024;

/** A line's problem: a 400 naming it (`errors[0].field` is `line <n>`). */
function lineProblem(line: number, message: string, status = 400): Problem {
  return new Problem(status, `Line ${line} ${message}; nothing of the file was kept`, [
    { field: `line ${line}`, message },
  ]);
}

/**
 * The first key or string of a line that PostgreSQL cannot hold as text (a NUL, an unpaired
 * surrogate: JSON lets a `\u` escape write either), named by its path. The line is kept as `json`,
 * which takes such escapes in, but every JSON function that reads its strings refuses them (the
 * erasure's search of kept lines did: a 500 for every erasure while the line was kept). No request
 * takes such text (src/domain/input-limits.ts), so the line is refused whole, as a malformed one is.
 * Only escapes make them: the caller looks only at lines holding one.
 */
function unstorableIn(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      const problem = unstorableText(node);
      if (problem) return `${path || 'the line'} ${problem}`;
    } else if (node !== null && typeof node === 'object') {
      for (const [key, inner] of Object.entries(node)) {
        const at = Array.isArray(node) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
        const problem = unstorableText(key);
        if (problem && !Array.isArray(node)) return `a key of ${path || 'the line'} ${problem}`;
        stack.push([inner, at]);
      }
    }
  }
  return undefined;
}

/** How deep a JSON text nests, outside strings; stops counting past `limit`. */
function nesting(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** COPY's text format: the line's JSON with backslashes, tabs and line ends escaped. */
function copyText(json: string): string {
  return /[\\\t\r\n]/.test(json)
    ? json.replace(/[\\\t\r\n]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : '\\n'))
    : json;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The lines of a byte stream, numbered from 1, as text: split on `\n` (a `\r` before it dropped),
 * decoded as UTF-8. A final empty line (the file's last newline) is not a line. Refuses a line
 * longer than MAX_LINE_BYTES, a file over `maxBytes`, and invalid UTF-8.
 */
async function* linesOf(
  body: Readable,
  maxBytes: number,
  digest: Hash,
): AsyncGenerator<{ line: number; text: string }> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let total = 0;
  let line = 0;
  const text = (parts: Buffer[]) => {
    line++;
    let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    if (bytes.length && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
    try {
      return { line, text: decoder.decode(bytes) };
    } catch {
      throw lineProblem(line, 'is not valid UTF-8');
    }
  };
  for await (const chunk of chunksOf(body)) {
    digest.update(chunk);
    total += chunk.length;
    if (total > maxBytes) {
      throw new Problem(413, `The file is larger than BULK_UPLOAD_MAX_BYTES (${maxBytes} bytes); nothing was kept`);
    }
    let from = 0;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, from)) {
      if (heldBytes + at - from > MAX_LINE_BYTES)
        throw lineProblem(line + 1, `is longer than ${MAX_LINE_BYTES} bytes`, 413);
      held.push(chunk.subarray(from, at));
      yield text(held);
      held = [];
      heldBytes = 0;
      from = at + 1;
    }
    if (from < chunk.length) {
      heldBytes += chunk.length - from;
      if (heldBytes > MAX_LINE_BYTES) throw lineProblem(line + 1, `is longer than ${MAX_LINE_BYTES} bytes`, 413);
      held.push(chunk.subarray(from));
    }
  }
  if (heldBytes > 0) yield text(held);
}

/** The body's chunks; a body cut off (the client went away) is a 400, never the service's error. */
async function* chunksOf(body: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    if (error instanceof Problem) throw error;
    throw new Problem(400, 'The file ended before it was complete (the upload was cut off); nothing was kept');
  }
}

/** What the upload made: the upload's id, its lines and bytes, and the SHA-256 of the file (hex). */
export interface Upload {
  id: number;
  lines: number;
  bytes: number;
  hash: string;
}

/**
 * Reads `body` into a new upload of `tokenId`, checking each parsed line with `check` (its problem,
 * or undefined when it is a line of this form), and calls `then` with the upload inside the same
 * transaction (the REST form makes its operation there). All or nothing.
 */
export async function storeUpload<T>(
  pool: Pool,
  body: Readable,
  upload: { tokenId: number; form: 'rest' | 'graphql'; check: (value: unknown) => string | undefined },
  limits: UploadLimits,
  then: (client: PoolClient, upload: Upload) => Promise<T>,
): Promise<T> {
  const maxLines = limits.maxLines ?? BULK_MAX_LINES;
  const client = await pool.connect();
  let broken = false;
  try {
    // A COPY lasts as long as its client sends; the request's own timeouts bound it.
    await client.query('begin');
    await client.query('set local statement_timeout = 0');
    const created = await client.query<{ id: number }>(
      `insert into bulk_upload (token_id, form, lines, bytes, created_at)
        values ($1, $2, 0, 0, ${SQL_NOW}) returning id`,
      [upload.tokenId, upload.form],
    );
    const id = created.rows[0].id;
    // Nor the driver's read timeout (mikro-orm.config.ts: 35 s, a hung server's bound), which cut a
    // slow upload with an error of its own: a 500. The longest a timer waits (about 24 days).
    const copy = client.query(
      Object.assign(copyFrom('copy bulk_line (upload_id, line, input) from stdin'), { query_timeout: 2 ** 31 - 1 }),
    );
    // The COPY failing while the file is still being read (its connection ended by PostgreSQL):
    // a write waiting for 'drain' would wait forever, its request hung and its connection held.
    // A write after that throws a TypeError of the driver's: the COPY's own error is thrown instead.
    let ending = false;
    let failure: Error | undefined;
    const failed = new Promise<never>((_, reject) => {
      const fail = (error: Error) => reject((failure ??= error));
      copy.once('error', fail);
      copy.once('close', () => {
        if (!ending) fail(new Error('the COPY of the upload ended before the file was written'));
      });
    });
    failed.catch(() => undefined);
    let buffer = '';
    let lines = 0;
    let bytes = 0;
    const digest = createHash('sha256');
    const flush = async () => {
      if (failure) throw failure;
      if (!copy.write(buffer))
        await Promise.race([new Promise<void>((resolve) => copy.once('drain', resolve)), failed]);
      buffer = '';
    };
    try {
      for await (const { line, text } of linesOf(body, limits.maxBytes, digest)) {
        bytes += Buffer.byteLength(text) + 1;
        if (!text.trim()) throw lineProblem(line, 'is empty');
        if (line > maxLines) throw new Problem(413, `The file has more than ${maxLines} lines; nothing was kept`);
        if (nesting(text, MAX_LINE_NESTING) > MAX_LINE_NESTING)
          throw lineProblem(line, `nests deeper than ${MAX_LINE_NESTING} levels`);
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          throw lineProblem(line, 'is not valid JSON');
        }
        const problem = upload.check(value) ?? (text.includes('\\u') ? unstorableIn(value) : undefined);
        if (problem) throw lineProblem(line, problem);
        buffer += `${id}\t${line}\t${copyText(text)}\n`;
        lines = line;
        if (buffer.length >= COPY_BUFFER_BYTES) await flush();
      }
      if (buffer) await flush();
      ending = true;
      copy.end();
      await finished(copy);
    } catch (error) {
      // The COPY is abandoned (CopyFail): PostgreSQL drops what it took, the transaction rolls back.
      copy.destroy(error as Error);
      await finished(copy).catch(() => undefined);
      throw error;
    }
    if (lines === 0) throw new Problem(400, 'The file has no lines');
    await client.query('update bulk_upload set lines = $1, bytes = $2 where id = $3', [lines, bytes, id]);
    const result = await then(client, { id, lines, bytes, hash: digest.digest('hex') });
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
