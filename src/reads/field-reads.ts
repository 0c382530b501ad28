import { type Projection, pathsOf } from './projection.js';

/**
 * What a field resolver reads from its row, declared where the resolver is written, and the
 * computed relations (SQL by hand) declared next to the field they serve. The read planner
 * (read-plan.ts) collects both through type-graphql's metadata: nothing here names a table.
 */

/**
 * A path into the row: an entity property (`'ipFail'`; a reference gives its id), a relation with
 * every column (`'rules'`, a list), or a property of a related row (`'carrier.url'`,
 * `'items.lineItem'`): the relation is then loaded with what its paths name. `'x.*'` loads a
 * single relation with every column.
 */
export type ReadPath = string;

/**
 * A relation computed in SQL, landing on the row under its name: a list or one row of an entity
 * (built from its metadata like any relation), or a JSON value. `child` and `parent` are table
 * aliases; the SQL is fixed text, nothing a client sends reaches it.
 */
export type ComputedRelation =
  | {
      kind: 'many';
      entity: () => Function;
      where: (child: string, parent: string) => string;
      orderBy: (child: string) => string;
    }
  | { kind: 'one'; entity: () => Function; where: (child: string, parent: string) => string }
  | { kind: 'json'; sql: (parent: string) => string };

interface Declared {
  reads?: ReadPath[];
  projection?: Projection;
  computed?: { name: string | undefined; relation: ComputedRelation }[];
}

const declarations = new WeakMap<Function, Map<string, Declared>>();

function declare(resolverClass: Function, method: string): Declared {
  let methods = declarations.get(resolverClass);
  if (!methods) declarations.set(resolverClass, (methods = new Map()));
  let declared = methods.get(method);
  if (!declared) methods.set(method, (declared = {}));
  return declared;
}

/**
 * The row's properties and relations a field resolver reads (see ReadPath). A resolver without it
 * gets every column of its row: never a missing value, at worst a wider row.
 */
export function Reads(...paths: ReadPath[]): MethodDecorator {
  return (prototype, method) => {
    const declared = declare(prototype.constructor, String(method));
    declared.reads = [...(declared.reads ?? []), ...paths];
  };
}

/**
 * A relation of the resolver's type that no entity metadata holds (a rule-based selection, ids
 * gathered from elsewhere, a row found by a fixed key), computed in SQL. Named after the field
 * unless `name` says otherwise; when named after the field it is loaded whenever the field is
 * selected, with the field's selection.
 */
export function Computed(relation: ComputedRelation, name?: string): MethodDecorator {
  return (prototype, method) => {
    const declared = declare(prototype.constructor, String(method));
    declared.computed = [...(declared.computed ?? []), { name, relation }];
  };
}

/**
 * A field resolver whose value is its row's properties as `projection` arranges them (see
 * projection.ts): the resolver returns `projectRow(row, projection)`, the read plan loads what it
 * names (its `@Reads`), and the `/graphql` passthrough builds the same value in SQL.
 */
export function Projects(projection: Projection): MethodDecorator {
  return (prototype, method) => {
    const declared = declare(prototype.constructor, String(method));
    declared.projection = projection;
    declared.reads = [...(declared.reads ?? []), ...pathsOf(projection)];
  };
}

/** What a resolver class's method declares (nothing when it declares nothing). */
export function declaredOn(resolverClass: Function, method: string): Declared {
  return declarations.get(resolverClass)?.get(method) ?? {};
}
