import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

// Year 1 to 9999: what PostgreSQL and Date both hold; anything else is a client's mistake.
const MIN = -62135596800;
const MAX = 253402300799;

function fromSeconds(seconds: number): Date {
  if (!Number.isInteger(seconds) || seconds < MIN || seconds > MAX) {
    throw new GraphQLError(`Timestamp must be integer Unix seconds from ${MIN} to ${MAX}`, { extensions: { code: 'BAD_USER_INPUT' } });
  }
  return new Date(seconds * 1000);
}

/** Points in time as integer Unix seconds, the spec's timestamp format, in GraphQL as in REST. */
export const TimestampScalar = new GraphQLScalarType<Date, number>({
  name: 'Timestamp',
  description: 'A point in time as integer Unix seconds',
  serialize: (value) => {
    const date = value instanceof Date ? value : new Date(value as string);
    if (Number.isNaN(date.getTime())) throw new GraphQLError('Timestamp cannot represent an invalid date');
    return Math.floor(date.getTime() / 1000);
  },
  parseValue: (value) => {
    if (typeof value !== 'number') throw new GraphQLError('Timestamp must be integer Unix seconds', { extensions: { code: 'BAD_USER_INPUT' } });
    return fromSeconds(value);
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) {
      throw new GraphQLError('Timestamp must be integer Unix seconds', { extensions: { code: 'BAD_USER_INPUT' } });
    }
    return fromSeconds(Number(ast.value));
  },
});
