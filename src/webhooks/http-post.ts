import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isNonPublicAddress } from './target-policy.js';

export interface PostResult {
  /** The receiver's status; absent when there was no answer. */
  status?: number;
  error?: string;
  durationMs: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs one webhook. Bounded in time as a whole (`timeoutMs` from connect to the end of the
 * answer), never follows redirects (a 3xx is a failed attempt: a redirect could lead anywhere),
 * checks every resolved address against the SSRF guard, and reads at most 64 KiB of the answer.
 * Never throws: the outcome is data for the delivery log.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    // Declared before anything can finish: a refusal before the request exists ends the attempt too.
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Date.now() - started });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish({ error: 'invalid URL' });
    }
    const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
    if (!client) return finish({ error: `refused: ${target.protocol} is not http(s)` });
    // A literal address never goes through `lookup`, so it is checked here.
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIP(host) && isNonPublicAddress(host))
      return finish({ error: `refused: ${host} is a private or loopback address` });
    let request: http.ClientRequest;
    try {
      request = client.request(target, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'store-api-webhooks/1',
        },
        lookup: guardedLookup(options.allowPrivate),
        agent: false,
      });
    } catch (error) {
      return finish({ error: error instanceof Error ? error.message : String(error) });
    }
    timer = setTimeout(() => {
      request.destroy(new Error(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (error) => finish({ error: error.message }));
    request.on('response', (response) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) response.destroy();
      });
      const done = () => finish({ status: response.statusCode });
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    request.end(body);
  });
}
