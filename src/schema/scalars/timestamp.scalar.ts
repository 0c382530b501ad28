import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

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
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw new GraphQLError('Timestamp must be integer Unix seconds', { extensions: { code: 'BAD_USER_INPUT' } });
    }
    return new Date(value * 1000);
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) {
      throw new GraphQLError('Timestamp must be integer Unix seconds', { extensions: { code: 'BAD_USER_INPUT' } });
    }
    return new Date(Number(ast.value) * 1000);
  },
});
