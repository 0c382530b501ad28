/**
 * Sets `key` in a map kept to `max` entries, the oldest out first: the per-process caches and
 * hints (documents, statements, tokens) each hold what a few thousand shapes or callers need.
 * `key` moves to the newest place.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
