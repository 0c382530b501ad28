import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { logger } from '../logger.js';
import { Problem } from './problem.js';

export interface ExportLimits {
  /** EXPORTS_PER_TOKEN: exports one token may hold open at once on this process. */
  perToken: number;
  /** EXPORT_STALL_TIMEOUT_MS: an export whose client takes nothing for this long is cut. */
  stallMs: number;
}

export const DEFAULT_EXPORT_LIMITS: ExportLimits = { perToken: 2, stallMs: 30_000 };

/**
 * The most one write of an export's response holds. A chunk from PostgreSQL is one text of up to
 * 250 records (hundreds of KiB); written whole, the client would have to take all of it before the
 * stream is pulled again, so a slow reader would look stalled. Written in pieces of about this
 * size, a reader making progress pulls at least every few dozen KiB.
 */
const PIECE = 64 * 1024;

/**
 * `text` in pieces of at most about `PIECE` characters, each ending at a line's end (a piece never
 * splits a character, nor a line longer than a piece).
 */
function* piecesOf(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > PIECE) {
    let end = text.lastIndexOf('\n', start + PIECE);
    if (end < start) end = text.indexOf('\n', start + PIECE);
    if (end < 0) break;
    yield text.slice(start, end + 1);
    start = end + 1;
  }
  if (start < text.length) yield start === 0 ? text : text.slice(start);
}

/**
 * `lines` in pieces, calling `stalled` when one waits `stallMs` for the client to take it. The
 * clock runs only while a piece is ready and not taken (the generator waits at `yield`), never
 * while the next chunk is being read: a client that stops reading is what it measures, not the
 * database. Returning (the stream destroyed) returns `lines` too, which closes its snapshot.
 */
async function* watched(lines: AsyncIterable<string>, stallMs: number, stalled: () => void): AsyncGenerator<string> {
  for await (const part of lines) {
    for (const piece of piecesOf(part)) {
      const timer = setTimeout(stalled, stallMs);
      try {
        yield piece;
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

/**
 * The REST exports open on this process (issue 36 item 5: exports taken hostage). Each holds a
 * snapshot, so a pooled connection, for as long as its client reads; the gateway holds the
 * process to half its pool of them. Three things keep a client from holding those for good:
 * - at most `perToken` open exports per token (one more is a 429 naming the limit), so one token
 *   cannot take every place;
 * - an export whose client takes nothing for `stallMs` is cut: its connection destroyed, its
 *   snapshot closed, its place given back;
 * - `cutAll` ends every open export at once (shutdown, at the end of its grace).
 * However an export ends (read to the end, client gone, stalled, cut, never started because the
 * response ended first), its `end` runs once: the snapshot is closed and the place given back.
 */
export class OpenExports {
  readonly limits: ExportLimits;
  private readonly byToken = new Map<number, number>();
  /** Each open export: how to cut it, and when it has ended. */
  private readonly open = new Map<Readable, { cut: () => void; ended: Promise<void> }>();

  constructor(given: Partial<ExportLimits> = {}) {
    this.limits = { ...DEFAULT_EXPORT_LIMITS, ...given };
  }

  /**
   * One of the token's places, as the function that gives it back (once, however often called),
   * or a 429 problem naming the limit when the token holds all of its places.
   */
  admit(tokenId: number): () => void {
    const held = this.byToken.get(tokenId) ?? 0;
    const { perToken } = this.limits;
    if (held >= perToken)
      throw new Problem(
        429,
        `This token already has ${held} exports open on this server process, as many as EXPORTS_PER_TOKEN ` +
          `(${perToken}) allows; retry once one has ended`,
        undefined,
        { 'Retry-After': '1' },
      );
    this.byToken.set(tokenId, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.byToken.get(tokenId) ?? 1) - 1;
      if (left) this.byToken.set(tokenId, left);
      else this.byToken.delete(tokenId);
    };
  }

  /**
   * The response body of an export: `lines` as a stream the response pulls (backpressure), cut
   * when its client stalls. `end` (close the snapshot, give the place back) runs once the stream
   * is done with, whether or not `lines` ever started: a response that ends before it pulled the
   * first line (the client gone at once) never runs the generator's `finally`.
   */
  body(ctx: Context, lines: AsyncGenerator<string>, end: () => Promise<void>): Readable {
    const { stallMs } = this.limits;
    const cut = () => {
      ctx.res.destroy();
      stream.destroy();
    };
    const stalled = () => {
      logger.info(
        { requestId: ctx.state.requestId, path: ctx.path, stallMs },
        'export cut: its client took nothing for EXPORT_STALL_TIMEOUT_MS',
      );
      cut();
    };
    const stream = Readable.from(watched(lines, stallMs, stalled), { objectMode: false });
    let finish!: () => void;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    this.open.set(stream, { cut, ended });
    // 'close' comes once the stream's destroy has returned the generators (Readable.from awaits
    // it), so a snapshot being read from is closed by the generator itself, after the read.
    stream.once('close', () => {
      lines
        .return(undefined)
        .catch(() => undefined)
        .then(end)
        .catch((error) => logger.error({ err: error }, 'closing an export failed'))
        .finally(() => {
          this.open.delete(stream);
          finish();
        });
    });
    return stream;
  }

  /** Cuts every open export and waits until each has closed its snapshot. */
  async cutAll(): Promise<void> {
    const open = [...this.open.values()];
    for (const { cut } of open) cut();
    await Promise.all(open.map(({ ended }) => ended));
  }
}
