// Runs a bounded batch of abusive requests in parallel (after one unmeasured warm-up request) and,
// while they are in flight, measures how long the same service takes to answer /healthz
// (docs/operations.md#hostile-load-findings: it must stay under 200 ms).
export interface AbuseOutcome<T> {
  results: T[];
  /** Slowest /healthz answer seen while the abuse ran, in ms. */
  healthzMs: number;
}

export async function whileAbusing<T>(
  baseUrl: string,
  count: number,
  abuse: (i: number) => Promise<T>,
): Promise<AbuseOutcome<T>> {
  // One abusive request first, unmeasured: the claim is about a warm service, not the JIT's first pass.
  await abuse(count);
  let running = true;
  const timings: number[] = [];
  const probe = (async () => {
    do {
      const started = performance.now();
      const res = await fetch(`${baseUrl}/healthz`);
      await res.text();
      timings.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 25));
    } while (running);
  })();
  let results: T[];
  try {
    results = await Promise.all(
      Array.from({ length: count }, (_, i) => new Promise((r) => setTimeout(r, 10)).then(() => abuse(i))),
    );
  } finally {
    running = false;
    await probe;
  }
  return { results, healthzMs: Math.max(...timings) };
}
