/** A value's LIKE wildcards (`%`, `_`) and escape character escaped, so they match literally. */
export function likeEscape(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%value%` for ILIKE, with the value's own wildcards escaped so they match literally. */
export function containsPattern(value: string): string {
  return `%${likeEscape(value)}%`;
}
