import { Max, Min } from 'class-validator';
import { ArgsType, type ClassType, Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DEFAULT_ANSWER_MAX_BYTES } from '../config.js';
import { screamingCase } from './enum-names.js';
import { PAGE_SIZE } from './page-size.js';

/**
 * Largest page a list returns, for GraphQL as for REST `size` (docs/decisions.md#lists; the numbers
 * live in src/schema/page-size.ts).
 */
export const MAX_PAGE_SIZE = PAGE_SIZE.max;

/** The answer's byte bound as the schema states it (src/reads/answer-bytes.ts). */
export const ANSWER_BOUND = `${DEFAULT_ANSWER_MAX_BYTES / (1024 * 1024)} MiB unless the service sets another`;
export const DEFAULT_PAGE_SIZE = PAGE_SIZE.default;

export enum SortDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}
registerEnumType(SortDirection, {
  name: 'SortDirection',
  description: 'Order of a sort term',
  valuesConfig: {
    ASC: { description: 'Smallest first (A to Z, oldest first)' },
    DESC: { description: 'Largest first (Z to A, newest first)' },
  },
});

@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: 1, description: 'Page number, from 1' })
  @Min(1, { message: 'page must be an integer ≥ 1' })
  page: number = 1;

  @Field(() => Int, {
    defaultValue: DEFAULT_PAGE_SIZE,
    description:
      `Page size, 1..${MAX_PAGE_SIZE}. A page whose records' JSON would be more than the answer bound ` +
      `(${ANSWER_BOUND}) is refused with ANSWER_TOO_LARGE: ask a smaller page or fewer fields`,
  })
  @Min(PAGE_SIZE.min, { message: `size must be an integer from ${PAGE_SIZE.min} to ${MAX_PAGE_SIZE}` })
  @Max(MAX_PAGE_SIZE, { message: `size must be an integer from ${PAGE_SIZE.min} to ${MAX_PAGE_SIZE}` })
  size: number = DEFAULT_PAGE_SIZE;
}

/**
 * A page of a list that can be read in id order by keyset: `afterId` narrows the list to the
 * records with a larger id, so a reader that sorts by id ascending and passes the last id it saw
 * reads every page at the cost of the first (the REST exports do, docs/rest.md#exports).
 */
@ArgsType()
export class KeysetPageArgs extends PageArgs {
  @Field(() => Int, {
    nullable: true,
    description: 'Only records with a larger id (keyset paging: sort by id ascending, pass the last id seen)',
  })
  afterId?: number | null;
}

export interface SortTerm<F extends string = string> {
  field: F;
  direction: SortDirection;
}

/**
 * A list's sort enum and one sort term's input, for the given sort fields: the enum is the only way a
 * client names a sort field, so nothing else can reach ORDER BY. Its GraphQL values are the fields in
 * SCREAMING_CASE (`ORDER_DATE`); resolvers receive the camelCase field (`orderDate`). Lists declare
 * their fields with `listFields` (src/schema/list-fields.ts), which calls this.
 */
export function sortInput<K extends string>(name: string, keys: readonly K[]): ClassType<SortTerm<K>> {
  const values = Object.fromEntries(keys.map((k) => [screamingCase(k), k])) as Record<string, K>;
  registerEnumType(values, {
    name: `${name}SortField`,
    description: `Fields the ${name} list can be sorted by`,
    valuesConfig: Object.fromEntries(keys.map((k) => [screamingCase(k), { description: `Sort by \`${k}\`` }])),
  });

  @InputType(`${name}Sort`, { description: `One sort term of the ${name} list` })
  class SortInput implements SortTerm<K> {
    @Field(() => values, { description: 'The field to sort by' })
    field!: K;

    @Field(() => SortDirection, { defaultValue: SortDirection.ASC, description: 'Ascending or descending' })
    direction: SortDirection = SortDirection.ASC;
  }
  return SortInput;
}

/** The page wrapper every list query returns. */
export function PageOf<T extends object>(itemType: ClassType<T>) {
  @ObjectType() // never emitted itself: only reachable subclasses (ProductPage, …) are
  abstract class Page {
    @Field(() => [itemType], { description: 'The records on this page' })
    items!: T[];

    @Field(() => Int, { description: 'Number of records in the whole set' })
    totalCount!: number;

    @Field(() => Int, { description: 'This page number, from 1' })
    page!: number;

    @Field(() => Int, { description: 'Page size asked for' })
    size!: number;

    @Field(() => Int, { description: 'Number of pages of this size' })
    pageCount!: number;
  }
  return Page;
}
