// What bench/run.ts drives: one kind of request, its variation per request number, and the peers
// that answer it too.

/** The same read as a PostGraphile operation, and how its `data` maps onto the service's. */
export interface PeerOperation {
  query: string;
  variables?(i: number): Record<string, unknown>;
  /** The peer's `data` in the service's shape (names, scalar formats, lists instead of connections). */
  toServiceData(data: unknown): unknown;
}

export interface Scenario {
  name: string;
  /** Reads run against the baseline too; writes only against the service. */
  read: boolean;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path for request number i (ids vary so the cache of one row does not decide). */
  path(i: number): string;
  /** JSON body of request number i. */
  body?(i: number): unknown;
  /** A `/graphql` operation: an answer with `errors` counts as a failed request. */
  graphql?: boolean;
  /** The same read through PostGraphile (`--peer postgraphile`). */
  postgraphile?: PeerOperation;
  /** Request numbers whose answers are compared between the sides (default: 1 only). */
  compareAt?: number[];
}

/** A `/graphql` read: the operation's text verbatim, variables for request number i. */
export function graphqlScenario(
  name: string,
  query: string,
  variables: ((i: number) => Record<string, unknown>) | undefined,
  postgraphile?: PeerOperation,
): Scenario {
  return {
    name,
    read: true,
    graphql: true,
    method: 'POST',
    path: () => '/graphql',
    postgraphile,
    body: (i) => (variables ? { query, variables: variables(i) } : { query }),
  };
}

/** Deterministic spread of ids over 1..n (the same sequence for every side). */
export const idAt = (i: number, n: number) => ((i * 7919 + 17) % n) + 1;

/**
 * A deterministic pseudo-random number in [0, 1) for request number i (splitmix32 over i and a
 * salt): every side is sent the same sequence, with no visible stride.
 */
export function uniform(i: number, salt = 0): number {
  let x = (Math.imul(i, 0x9e3779b9) + Math.imul(salt + 1, 0x85ebca6b)) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return ((x ^ (x >>> 15)) >>> 0) / 2 ** 32;
}
