import type { GraphQLResolveInfo } from 'graphql';
import { Args, Authorized, Ctx, FieldResolver, Info, Int, Resolver, Root } from 'type-graphql';
import { memberProductIds } from '../domain/collection-membership.js';
import { ruleBasedVersion } from '../domain/collection-version.js';
import type { Page } from '../domain/listing.js';
import { Collection, CollectionType } from '../entities/collection.entity.js';
import type { CollectionRule } from '../entities/collection-rule.entity.js';
import { Computed, Reads } from '../reads/field-reads.js';
import { type RowById, readByIds } from '../reads/read-query.js';
import type { ReadRow } from '../reads/read-row.js';
import { below, type SelectionTree, selectionOf } from '../reads/selection.js';
import { PageArgs } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { ProductPage } from './product.resolver.js';

// Loaders are keyed by the selection they read with (two aliases may select differently).
const selectionKeys = new WeakMap<SelectionTree, number>();
let lastSelectionKey = 0;
const keyOf = (tree: SelectionTree) => {
  if (!selectionKeys.has(tree)) selectionKeys.set(tree, ++lastSelectionKey);
  return selectionKeys.get(tree)!;
};

/** The collections (rows with their rules) whose members a request asked for, by id. */
const asked = new WeakMap<GraphQLContext['loaders'], Map<number, WithRules>>();

type WithRules = ReadRow<Collection, { rules: ReadRow<CollectionRule>[] }>;

@Resolver(() => Collection)
export class CollectionFieldsResolver {
  @Computed({
    kind: 'json',
    sql: (p) => `coalesce((select json_agg(mcp.product_id order by mcp.position, mcp.id) from collection_product mcp
      where mcp.collection_id = ${p}.id), '[]'::json)`,
  })
  @FieldResolver(() => [Int], { description: 'Product ids added by hand (empty for a rule-based collection)' })
  manualProductIds(@Root() collection: ReadRow<Collection, { manualProductIds: number[] }>): number[] {
    return collection.manualProductIds;
  }

  // REST's `images` (ids); GraphQL has the images themselves too.
  @Computed({
    kind: 'json',
    sql: (p) => `coalesce((select json_agg(ci.image_id order by ci.position, ci.id) from collection_image ci
      where ci.collection_id = ${p}.id), '[]'::json)`,
  })
  @FieldResolver(() => [Int], { description: 'Ids of the uploaded images, in their order' })
  imageIds(@Root() collection: ReadRow<Collection, { imageIds: number[] }>): number[] {
    return collection.imageIds;
  }

  // Membership is computed from the rules when read (collection-membership.ts).
  @Reads('type', 'rulesMatchCondition', 'rules')
  @FieldResolver(() => [Int], { description: 'Ids of the member products: manual links, or the rules evaluated now' })
  async productIds(@Root() collection: WithRules, @Ctx() { loaders }: GraphQLContext): Promise<number[]> {
    // The read plan brings each collection with its rules; the memberships of every collection
    // of the response are then computed in one statement.
    let collections = asked.get(loaders);
    if (!collections) asked.set(loaders, (collections = new Map()));
    collections.set(collection.id, collection);
    const requested = collections;
    const loader = loaders.children<{ collectionId: number; productId: number }>(
      'collection.productIds',
      async (em, ids) => {
        const members = await memberProductIds(
          em,
          ids
            .map((id) => requested.get(id)!)
            .map((c) => ({
              id: c.id,
              type: c.type,
              rulesMatchCondition: c.rulesMatchCondition,
              rules: c.rules,
            })),
        );
        return [...members].flatMap(([collectionId, productIds]) =>
          productIds.map((productId) => ({ collectionId, productId })),
        );
      },
      (row) => row.collectionId,
    );
    return (await loader.load(collection.id)).map((row) => row.productId);
  }

  // A rule-based collection's version follows its members (domain/collection-version.ts): it is
  // computed from the same membership statement as productIds (one per response, shared). The
  // field and its description are the entity's.
  @Reads('version', 'type', 'rulesMatchCondition', 'rules')
  @FieldResolver(() => Int)
  async version(@Root() collection: WithRules, @Ctx() ctx: GraphQLContext): Promise<number> {
    if (collection.type === CollectionType.Manual) return collection.version;
    return ruleBasedVersion(collection.version, await this.productIds(collection, ctx));
  }

  // Whole products are product data: they need read_products, not just read_collections.
  @Authorized('read_products')
  @Reads('type', 'rulesMatchCondition', 'rules')
  @FieldResolver(() => ProductPage, {
    description: 'The member products, a page at a time, in the order of productIds',
  })
  async products(
    @Root() collection: WithRules,
    @Args(() => PageArgs) { page, size }: PageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Page<RowById>> {
    const ids = await this.productIds(collection, ctx);
    const pageIds = ids.slice((page - 1) * size, page * size);
    const items = below(selectionOf(info), 'items');
    const loader = ctx.loaders.byId(`collection.products.${keyOf(items)}`, (em, keys) =>
      readByIds(em, 'Product', items, keys, { page: true }),
    );
    const found = await loader.loadMany(pageIds);
    // A failed read (a page past the answer's bound among them) fails the field, never an empty page.
    const failed = found.find((p) => p instanceof Error);
    if (failed) throw failed;
    return {
      items: found.filter((p): p is RowById => p !== null && !(p instanceof Error)),
      totalCount: ids.length,
      page,
      size,
      pageCount: Math.ceil(ids.length / size),
    };
  }
}
