// A list's sorts and filters are declared once per field, next to its entity
// (src/schema/list-fields.ts): the table makes the GraphQL sort enum and filter input and the
// domain's ORDER BY and WHERE, and a declaration naming a property its entity lacks stops the schema
// build (docs/architecture.md#making-a-field-sortable-or-filterable).
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { type GraphQLSchema, printType } from 'graphql';
import { Arg, buildSchema, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { checkListColumns, filterConditions, orderByOf } from '../../src/domain/listing.js';
import { IntFilter } from '../../src/schema/inputs/range-filters.js';
import { filterBy, listFields } from '../../src/schema/list-fields.js';
import { SortDirection } from '../../src/schema/pagination.js';

@ObjectType({ description: 'A gadget of the fixture' })
@Entity()
class Gadget {
  @Field(() => Int, { description: 'Id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'Label' })
  @Property({ type: 'text' })
  label!: string;

  @Property({ type: 'integer' })
  weightGrams!: number;
}

const gadgetList = listFields(
  Gadget,
  {
    id: { sort: true, filter: filterBy.anyOf(Int, 'Any of these ids') },
    label: { filter: filterBy.text('Any of these substrings of the label') },
    weight: { column: 'weightGrams', sort: true, filter: filterBy.range(IntFilter, 'Weight in grams') },
  },
  { filter: 'Gadget search' },
);

@Resolver()
class GadgetResolver {
  @Query(() => [Gadget], { description: 'Gadgets' })
  gadgets(
    @Arg('sort', () => [gadgetList.SortInput], { nullable: true }) _sort?: unknown,
    @Arg('filter', () => gadgetList.FilterInput, { nullable: true }) _filter?: unknown,
  ): Gadget[] {
    return [];
  }
}

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildSchema({ resolvers: [GadgetResolver] });
});

it('makes the sort enum, the sort input and the filter input of the declared fields, in their order', () => {
  expect(printType(schema.getType('GadgetSortField')!)).toBe(
    [
      '"""Fields the Gadget list can be sorted by"""',
      'enum GadgetSortField {',
      '  """Sort by `id`"""',
      '  ID',
      '',
      '  """Sort by `weight`"""',
      '  WEIGHT',
      '}',
    ].join('\n'),
  );
  expect(printType(schema.getType('GadgetSort')!)).toContain('field: GadgetSortField!');
  expect(printType(schema.getType('GadgetFilter')!)).toBe(
    [
      '"""Gadget search"""',
      'input GadgetFilter {',
      '  """Any of these ids"""',
      '  id: [Int!]',
      '',
      '  """Any of these substrings of the label"""',
      '  label: [String!]',
      '',
      '  """Weight in grams"""',
      '  weight: IntFilter',
      '}',
    ].join('\n'),
  );
});

it('sorts and filters on the declared columns', () => {
  expect(gadgetList.columns).toEqual({ id: 'id', weight: 'weightGrams' });
  expect(orderByOf([{ field: 'weight', direction: SortDirection.DESC }], gadgetList.columns)).toEqual([
    { weightGrams: 'desc' },
    { id: 'desc' },
  ]);
  expect(filterConditions(gadgetList, { weight: { gte: 2 }, label: ['a_'], id: [1, 2] }, {})).toEqual([
    { id: { $in: [1, 2] } },
    { $or: [{ label: { $ilike: '%a\\_%' } }] },
    { weightGrams: { $gte: 2 } },
  ]);
});

it('stops the schema build when a declaration names a property its entity does not have', () => {
  expect(() => checkListColumns()).not.toThrow();

  @ObjectType({ description: 'A gizmo of the fixture' })
  @Entity()
  class Gizmo {
    @Field(() => Int, { description: 'Id' })
    @PrimaryKey({ type: 'integer' })
    id!: number;
  }
  listFields(Gizmo, { id: { sort: true }, colour: { sort: true } });
  expect(() => checkListColumns()).toThrow('listFields(Gizmo): colour names colour, which Gizmo does not have');
});
