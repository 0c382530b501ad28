import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/**
 * The one definition of a money amount's format: numeric(12,2) columns, so at most 10 digits
 * before the point and 2 after. A JSON number is read on its shortest text form (12.5 → "12.5"),
 * so 0.125 or 1e21 are refused without float arithmetic. Whether an amount may be negative is a
 * business rule of the field it fills (src/domain/input-checks.ts `checkAmount`), not of the format.
 */
export const DECIMAL_FORMAT = { integerDigits: 10, decimals: 2 } as const;
const PATTERN = new RegExp(`^-?\\d{1,${DECIMAL_FORMAT.integerDigits}}(\\.\\d{1,${DECIMAL_FORMAT.decimals}})?$`);
const EXPECTED =
  `a number or numeric string with at most ${DECIMAL_FORMAT.decimals} ` +
  `decimals and ${DECIMAL_FORMAT.integerDigits} digits before the point`;

/** An input amount as its exact text, or a BAD_USER_INPUT error saying what an amount is. */
export function parseDecimal(value: unknown): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !PATTERN.test(text)) {
    throw new GraphQLError(`Decimal must be ${EXPECTED}`, { extensions: { code: 'BAD_USER_INPUT' } });
  }
  return text;
}

/**
 * Money. PostgreSQL `numeric` values travel as strings end to end ("12.50"), so no float ever
 * touches an amount; inputs may be numbers or numeric strings with at most two decimals.
 *
 * `extensions.jsonSchema` describes the values it answers and `jsonInputSchema` those it takes,
 * as graphql-scalars' scalars do: the REST layer documents and checks this scalar through them
 * (and through `parseValue`), never through a copy of the pattern.
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
  // A written value's refusal carries its place in the document: the error names its field by it
  // (src/graphql/format-error.ts).
  parseLiteral: (ast) => {
    try {
      if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return parseDecimal(ast.value);
    } catch (error) {
      throw new GraphQLError((error as Error).message, { nodes: ast, extensions: { code: 'BAD_USER_INPUT' } });
    }
    throw new GraphQLError('Decimal must be a number or a numeric string', {
      nodes: ast,
      extensions: { code: 'BAD_USER_INPUT' },
    });
  },
  extensions: {
    jsonSchema: { type: 'string', pattern: `^-?\\d+\\.\\d{${DECIMAL_FORMAT.decimals}}$` },
    jsonInputSchema: { type: ['number', 'string'], pattern: PATTERN.source, description: `an amount: ${EXPECTED}` },
  },
});
