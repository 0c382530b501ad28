/**
 * Polls `probe` every `everyMs` until it gives a value (not undefined, false or a rejection), and
 * returns it; fails after `ms`.
 */
export async function until<T>(probe: () => Promise<T | undefined | false>, ms: number, everyMs = 100): Promise<T> {
  for (const end = Date.now() + ms; ; ) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
