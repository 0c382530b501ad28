/**
 * Page size limits of every list (docs/decisions.md#lists): GraphQL's `size` argument (src/schema/pagination.ts)
 * and REST's `size` query parameter read them here. A module of its own, without decorators, so an
 * edge can read the numbers without loading the schema's classes.
 */
export const PAGE_SIZE = { default: 20, min: 1, max: 250 } as const;
