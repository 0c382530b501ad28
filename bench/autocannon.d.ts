// The part of autocannon 9's API the benchmark uses (the package ships no types; @types/autocannon
// describes version 7).
declare module 'autocannon' {
  namespace autocannon {
    interface RawRequest {
      method?: string;
      path?: string;
      body?: string;
      headers?: Record<string, string>;
    }
    type Context = Record<string, unknown>;
    interface Request extends RawRequest {
      setupRequest?: (request: RawRequest, context: Context) => RawRequest | undefined;
      onResponse?: (status: number, body: string, context: Context, headers: Record<string, string>) => void;
    }
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
      total: number;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      /** Requests to make, instead of a duration. */
      amount?: number;
      headers?: Record<string, string>;
      requests?: Request[];
      /** Seconds before a request counts as timed out (default 10). */
      timeout?: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      non2xx: number;
      errors: number;
      timeouts: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
