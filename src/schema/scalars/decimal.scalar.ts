import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

// numeric(12,2) columns: at most 10 integer digits, so a valid Decimal always fits.
const DECIMAL = /^-?\d{1,10}(\.\d{1,2})?$/;

function parseDecimal(value: unknown): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !DECIMAL.test(text)) {
    throw new GraphQLError('Decimal must be a number or numeric string with at most 2 decimals', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return text;
}

/**
 * Money. PostgreSQL `numeric` values travel as strings end to end ("12.50"), so no float ever
 * touches an amount; inputs may be numbers or numeric strings with at most two decimals.
 */
export const DecimalScalar = new GraphQLScalarType<string, string>({
  name: 'Decimal',
  description: 'An exact decimal amount, serialised as a string with two decimals ("12.50")',
  serialize: (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return value.toFixed(2);
    throw new GraphQLError('Decimal cannot represent a non-numeric value');
  },
  parseValue: parseDecimal,
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return parseDecimal(ast.value);
    throw new GraphQLError('Decimal must be a number or a numeric string', { extensions: { code: 'BAD_USER_INPUT' } });
  },
});
