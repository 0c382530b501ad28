/** A filter's exact values (any of) and inclusive bounds, as the GraphQL range filters carry them. */
export interface RangeFilter<T> {
  eq?: T[];
  gte?: T;
  lte?: T;
}

/** A MikroORM condition for a range filter: any of the exact values, within the bounds. */
export function rangeCondition<T>(filter: RangeFilter<T>): Record<string, unknown> {
  const condition: Record<string, unknown> = {};
  if (filter.eq) condition.$in = filter.eq;
  if (filter.gte !== undefined && filter.gte !== null) condition.$gte = filter.gte;
  if (filter.lte !== undefined && filter.lte !== null) condition.$lte = filter.lte;
  return condition;
}
