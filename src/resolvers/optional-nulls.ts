import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNullableType,
  isInputObjectType,
  isListType,
} from 'graphql';
import type { FieldError } from '../domain/errors.js';
import { NULL_REFUSED, refusesNull } from '../schema/optional-field.js';

/** Whether a value of this type can hold an `@Optional` field somewhere. */
function reachesOptional(type: GraphQLInputType, seen = new Set<GraphQLInputType>()): boolean {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return reachesOptional(nullable.ofType, seen);
  if (!isInputObjectType(nullable) || seen.has(nullable)) return false;
  seen.add(nullable);
  return Object.values(nullable.getFields()).some((f) => refusesNull(f) || reachesOptional(f.type, seen));
}

/** Per root operation, the arguments worth walking, worked out on its first call. */
const walkedArgs = new WeakMap<GraphQLField<unknown, unknown>, GraphQLArgument[]>();

function collect(value: unknown, type: GraphQLInputType, path: string, out: FieldError[]): void {
  if (value === null || value === undefined) return;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        collect(item, nullable.ofType, `${path}[${i}]`, out);
      });
    }
    return;
  }
  if (!isInputObjectType(nullable)) return;
  for (const field of Object.values(nullable.getFields())) {
    const given = (value as Record<string, unknown>)[field.name];
    const at = path ? `${path}.${field.name}` : field.name;
    if (given === null && refusesNull(field)) out.push({ field: at, message: NULL_REFUSED });
    else collect(given, field.type, at, out);
  }
}

/**
 * Nulls given to `@Optional` fields in the arguments of a root operation, by path (`input.title`).
 * Operations whose arguments cannot hold such a field (every read) are not walked at all.
 */
export function nullProblems(operation: GraphQLField<unknown, unknown>, args: Record<string, unknown>): FieldError[] {
  let walked = walkedArgs.get(operation);
  if (!walked) walkedArgs.set(operation, (walked = operation.args.filter((arg) => reachesOptional(arg.type))));
  const out: FieldError[] = [];
  for (const arg of walked) collect(args[arg.name], arg.type, arg.name, out);
  return out;
}
