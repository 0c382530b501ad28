import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/** Year 1 to 9999 in Unix seconds: what PostgreSQL and Date both hold; anything else is a client's mistake. */
export const TIMESTAMP_RANGE = { min: -62135596800, max: 253402300799 } as const;

function fromSeconds(seconds: number): Date {
  if (!Number.isInteger(seconds) || seconds < TIMESTAMP_RANGE.min || seconds > TIMESTAMP_RANGE.max) {
    throw new GraphQLError(
      `Timestamp must be integer Unix seconds from ${TIMESTAMP_RANGE.min} to ${TIMESTAMP_RANGE.max}`,
      { extensions: { code: 'BAD_USER_INPUT' } },
    );
  }
  return new Date(seconds * 1000);
}

/**
 * Points in time as integer Unix seconds, the spec's timestamp format, in GraphQL as in REST.
 * `extensions.jsonSchema` (graphql-scalars' convention) is how the REST layer documents it.
 */
export const TimestampScalar = new GraphQLScalarType<Date, number>({
  name: 'Timestamp',
  description: 'A point in time as integer Unix seconds',
  serialize: (value) => {
    const date = value instanceof Date ? value : new Date(value as string);
    if (Number.isNaN(date.getTime())) throw new GraphQLError('Timestamp cannot represent an invalid date');
    return Math.floor(date.getTime() / 1000);
  },
  parseValue: (value) => {
    if (typeof value !== 'number')
      throw new GraphQLError('Timestamp must be integer Unix seconds', { extensions: { code: 'BAD_USER_INPUT' } });
    return fromSeconds(value);
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) {
      const extensions = { code: 'BAD_USER_INPUT' };
      throw new GraphQLError('Timestamp must be integer Unix seconds', { nodes: ast, extensions });
    }
    try {
      return fromSeconds(Number(ast.value));
    } catch (error) {
      throw new GraphQLError((error as Error).message, { nodes: ast, extensions: { code: 'BAD_USER_INPUT' } });
    }
  },
  extensions: {
    jsonSchema: { type: 'integer', description: 'Unix seconds' },
    jsonInputSchema: {
      type: 'integer',
      minimum: TIMESTAMP_RANGE.min,
      maximum: TIMESTAMP_RANGE.max,
      description: 'Unix seconds',
    },
  },
});
