import type { OperationResult, Snapshot } from '../graphql/gateway.js';
import { PAGE_SIZE } from '../schema/page-size.js';

/**
 * Records read per statement of an export: the list's largest page, so a chunk costs what the
 * list's largest page costs, and memory holds one chunk (plus the socket's buffers) whatever the
 * store's size.
 */
export const EXPORT_CHUNK = PAGE_SIZE.max;

/**
 * One chunk of an export as NDJSON: its lines (each ending with a newline), how many, and the last
 * record's id (the next chunk starts after it).
 */
export interface ExportChunk {
  /** The lines, in parts (each written to the response as it is). */
  parts: readonly string[];
  count: number;
  lastId: number | null;
  /** The chunk ended early at the answer's bound (src/reads/answer-bytes.ts): more records follow. */
  more?: boolean;
}

/** Reads the chunk after `afterId` (null: the first), or throws the problem its errors stand for. */
export type ReadChunk = (afterId: number | null) => Promise<ExportChunk>;

/**
 * The chunk of the operation's answer, each record reshaped by `line` (the road where execution
 * computes fields PostgreSQL cannot), with the operation's errors thrown by `refuse` (the REST
 * edge's problem mapping).
 */
export function chunkOf(
  result: OperationResult,
  line: (record: Record<string, unknown>) => unknown,
  refuse: (result: OperationResult) => never,
): ExportChunk {
  const items = (result.data?.result as { items?: Record<string, unknown>[] } | null | undefined)?.items;
  if (result.errors?.length || !Array.isArray(items)) return refuse(result);
  let text = '';
  for (const record of items) text += `${JSON.stringify(line(record))}\n`;
  return { parts: [text], count: items.length, lastId: items.length ? (items[items.length - 1].id as number) : null };
}

/**
 * The NDJSON of an export, one string per part of a chunk: the lines of `first`, then of every chunk after
 * the last id seen, and last `{"complete":true,"count":N}`. A generator, pulled by the response
 * stream only as the client reads (backpressure), so at most two chunks are in memory (the one
 * written, the one read ahead); the snapshot is closed however it ends (done, client gone, error),
 * and a failure mid-way ends the response without the complete line.
 */
export async function* exportLines(
  snapshot: Snapshot,
  first: ExportChunk,
  readChunk: ReadChunk,
): AsyncGenerator<string> {
  let next: Promise<ExportChunk> | undefined;
  try {
    let chunk = first;
    let count = 0;
    for (;;) {
      // The next chunk is read while this one is written: PostgreSQL and the event loop work at
      // once. Two chunks at most are held; the one ahead waits for the client like the rest.
      const ended = chunk.count < EXPORT_CHUNK && !chunk.more;
      next = ended || chunk.lastId === null ? undefined : readChunk(chunk.lastId);
      next?.catch(() => undefined); // awaited below, or dropped when the client has gone
      for (const part of chunk.parts) yield part;
      count += chunk.count;
      if (!next) break;
      chunk = await next;
    }
    yield `${JSON.stringify({ complete: true, count })}\n`;
  } finally {
    // A read still under way finishes (or fails) before the snapshot's connection is given back.
    await next?.catch(() => undefined);
    await snapshot.close();
  }
}
