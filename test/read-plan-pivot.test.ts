// The read planner's many-to-many road (src/reads/read-plan.ts, `m:n`): no entity of the store has
// a @ManyToMany yet, so two entities of this file's own, on a database of its own, show that such
// a relation is readable from both sides, in its `orderBy`, with nothing written in src/reads.
import { Collection } from '@mikro-orm/core';
import { Entity, ManyToMany, PrimaryKey, Property, ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { MikroORM } from '@mikro-orm/postgresql';
import { Field, Int, ObjectType } from 'type-graphql';
import { readByIds } from '../src/reads/read-query.js';
import type { SelectionTree } from '../src/reads/selection.js';
import { createDatabase } from './support/harness.js';

@ObjectType()
@Entity({ tableName: 'pivot_label' })
class PivotLabel {
  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @Field()
  @Property()
  name!: string;

  @Field(() => [PivotArticle])
  @ManyToMany(
    () => PivotArticle,
    (article) => article.labels,
    { orderBy: { title: 'desc' } },
  )
  articles = new Collection<PivotArticle>(this);
}

@ObjectType()
@Entity({ tableName: 'pivot_article' })
class PivotArticle {
  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @Field()
  @Property()
  title!: string;

  @Field(() => [PivotLabel])
  @ManyToMany(
    () => PivotLabel,
    (label) => label.articles,
    { owner: true, orderBy: { name: 'asc' } },
  )
  labels = new Collection<PivotLabel>(this);
}

const tree = (entries: [string, SelectionTree][] = []): SelectionTree => new Map(entries);

let orm: MikroORM;
beforeAll(async () => {
  orm = await MikroORM.init({
    clientUrl: await createDatabase('empty'),
    entities: [PivotLabel, PivotArticle],
    metadataProvider: ReflectMetadataProvider,
    allowGlobalContext: true,
  });
  await orm.schema.create();
  const em = orm.em.fork();
  const [red, green, blue] = ['red', 'green', 'blue'].map((name) => em.create(PivotLabel, { name }));
  const first = em.create(PivotArticle, { title: 'first' });
  const second = em.create(PivotArticle, { title: 'second' });
  em.create(PivotArticle, { title: 'bare' });
  first.labels.add(red, green, blue);
  second.labels.add(green);
  await em.flush();
});
afterAll(() => orm?.close());

it('reads the owner side through the pivot table, in its orderBy', async () => {
  const selection = tree([
    ['title', tree()],
    ['labels', tree([['name', tree()]])],
  ]);
  const rows = await readByIds(orm.em.fork(), 'PivotArticle', selection, [1, 2, 3]);
  expect(rows).toEqual([
    {
      id: 1,
      title: 'first',
      labels: [
        { id: 3, name: 'blue' },
        { id: 2, name: 'green' },
        { id: 1, name: 'red' },
      ],
    },
    { id: 2, title: 'second', labels: [{ id: 2, name: 'green' }] },
    { id: 3, title: 'bare', labels: [] },
  ]);
});

it('reads the inverse side through the same pivot table, in its own orderBy', async () => {
  const selection = tree([
    ['name', tree()],
    ['articles', tree([['title', tree()]])],
  ]);
  const rows = await readByIds(orm.em.fork(), 'PivotLabel', selection, [2, 1]);
  expect(rows).toEqual([
    {
      id: 2,
      name: 'green',
      articles: [
        { id: 2, title: 'second' },
        { id: 1, title: 'first' },
      ],
    },
    { id: 1, name: 'red', articles: [{ id: 1, title: 'first' }] },
  ]);
});
