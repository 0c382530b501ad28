import { Max, Min } from 'class-validator';
import { ArgsType, Field, InputType, Int, ObjectType, registerEnumType, type ClassType } from 'type-graphql';

/** Largest page a list returns, for GraphQL as for REST `size` (decisions §2). */
export const MAX_PAGE_SIZE = 250;
export const DEFAULT_PAGE_SIZE = 20;

export enum SortDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}
registerEnumType(SortDirection, { name: 'SortDirection' });

@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: 1, description: 'page number, from 1' })
  @Min(1, { message: 'page must be an integer ≥ 1' })
  page: number = 1;

  @Field(() => Int, { defaultValue: DEFAULT_PAGE_SIZE, description: `page size, 1..${MAX_PAGE_SIZE}` })
  @Min(1, { message: `size must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Max(MAX_PAGE_SIZE, { message: `size must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  size: number = DEFAULT_PAGE_SIZE;
}

export interface SortTerm<F extends string = string> {
  field: F;
  direction: SortDirection;
}

/**
 * A resource's sort whitelist as data: GraphQL enum value → entity property. The enum is the only
 * way a client names a sort field, so nothing else can reach ORDER BY.
 */
export function sortableFields<const F extends Record<string, string>>(name: string, fields: F) {
  const values = Object.fromEntries(Object.keys(fields).map((k) => [k, k])) as { [K in keyof F]: K };
  registerEnumType(values, { name: `${name}SortField`, description: `Fields a ${name} list can be sorted by` });

  @InputType(`${name}Sort`)
  class SortInput implements SortTerm<Extract<keyof F, string>> {
    @Field(() => values)
    field!: Extract<keyof F, string>;

    @Field(() => SortDirection, { defaultValue: SortDirection.ASC })
    direction: SortDirection = SortDirection.ASC;
  }
  return { columns: fields, SortInput };
}

/** The page wrapper every list query returns. */
export function PageOf<T extends object>(itemType: ClassType<T>) {
  @ObjectType() // never emitted itself: only reachable subclasses (ProductPage, …) are
  abstract class Page {
    @Field(() => [itemType])
    items!: T[];

    @Field(() => Int, { description: 'number of records in the whole set' })
    totalCount!: number;

    @Field(() => Int)
    page!: number;

    @Field(() => Int)
    size!: number;

    @Field(() => Int, { description: 'number of pages of this size' })
    pageCount!: number;
  }
  return Page;
}
