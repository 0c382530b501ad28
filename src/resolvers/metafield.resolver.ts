import { Arg, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver, UseMiddleware } from 'type-graphql';
import { ForbiddenError, NotFoundError } from '../domain/errors.js';
import {
  createMetafieldDefinition,
  deleteMetafieldDefinition,
  metafieldDefinitionsOf,
  ownerTypeOfDefinition,
} from '../domain/metafield-definitions.js';
import { METAFIELD_OWNERS } from '../domain/metafield-owners.js';
import { deleteMetafields, setMetafields } from '../domain/metafields-set.js';
import { inTransaction } from '../domain/transaction.js';
import { Metafield } from '../entities/metafield.entity.js';
import { MetafieldDefinition } from '../entities/metafield-definition.entity.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { MetafieldIdentifierInput, MetafieldsSetInput } from '../schema/inputs/metafield.inputs.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'One metafield of one record, as metafieldsDelete names it' })
export class MetafieldIdentifier {
  @Field(() => MetafieldOwnerType, { description: 'The kind of record' }) ownerType!: MetafieldOwnerType;
  @Field(() => Int, { description: "The record's id" }) ownerId!: number;
  @Field({ description: "The definition's namespace" }) namespace!: string;
  @Field({ description: "The definition's key" }) key!: string;
}

/**
 * The scopes of metafields are their owners' (docs/decisions.md#custom-data-metafields): an owner
 * type's read scope reads its definitions, its write scope writes them and its values. One call
 * may touch several owner types, so the scopes are checked here, per owner type, rather than by
 * one `@Authorized` scope; `@Authorized()` still requires a valid token first.
 */
function requireScopes(ctx: GraphQLContext, ownerTypes: Iterable<MetafieldOwnerType>, kind: 'read' | 'write'): void {
  const missing = [...new Set([...ownerTypes].map((type) => METAFIELD_OWNERS[type][`${kind}Scope`]))]
    .filter((scope) => !ctx.principal.scopes.has(scope as never))
    .sort();
  if (missing.length) throw new ForbiddenError(missing);
}

const WRITE_SCOPES =
  'Scope: the write scope of the owner type (write_orders, write_customers, write_products, ' +
  'write_collections; a variant: write_products)';

@Resolver()
@UseMiddleware(inputGuard)
export class MetafieldResolver {
  @Authorized()
  @Query(() => [MetafieldDefinition], {
    description:
      "An owner type's metafield definitions, by namespace and key (at most 250). Scope: the owner type's read " +
      'scope (read_orders, read_customers, read_products, read_collections; a variant: read_products)',
  })
  async metafieldDefinitions(
    @Arg('ownerType', () => MetafieldOwnerType, { description: 'The kind of record' }) ownerType: MetafieldOwnerType,
    @Ctx() ctx: GraphQLContext,
  ): Promise<MetafieldDefinition[]> {
    requireScopes(ctx, [ownerType], 'read');
    return metafieldDefinitionsOf(ctx.em, ownerType);
  }

  @Authorized()
  @Mutation(() => MetafieldDefinition, {
    description:
      'Defines a typed metafield of one kind of record (at most 250 per owner type; namespace and key unique ' +
      `per owner type, CONFLICT otherwise). ${WRITE_SCOPES}`,
  })
  async createMetafieldDefinition(
    @Arg('ownerType', () => MetafieldOwnerType, { description: 'The kind of record' }) ownerType: MetafieldOwnerType,
    @Arg('namespace', { description: '1–64 of a-z, 0-9, _ and -' }) namespace: string,
    @Arg('key', { description: '1–64 of a-z, 0-9, _ and -' }) key: string,
    @Arg('type', {
      description:
        'single_line_text_field, multi_line_text_field, number_integer, number_decimal, boolean, date, ' +
        'date_time, url or json',
    })
    type: string,
    @Arg('name', { description: 'A human-readable name' }) name: string,
    @Arg('description', () => String, { nullable: true, description: 'What the values mean' })
    description: string | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<MetafieldDefinition> {
    requireScopes(ctx, [ownerType], 'write');
    return inTransaction(ctx.em, (tx) =>
      createMetafieldDefinition(tx, { ownerType, namespace, key, type, name, description }),
    );
  }

  @Authorized()
  @Mutation(() => Int, {
    description:
      'Deletes a metafield definition and every value of it; each record that had one gets a new version ' +
      `and an event (order.updated etc.). Answers the id. ${WRITE_SCOPES}`,
  })
  async deleteMetafieldDefinition(
    @Arg('id', () => Int, { description: 'Definition id' }) id: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<number> {
    // Whether a definition exists is itself only for a token that may write some owner type's, and
    // a definition of a type the token may not even list (its read scope) is as unknown to it as a
    // missing one: NOT_FOUND, never a FORBIDDEN that tells the id is taken.
    const writesAny = Object.values(METAFIELD_OWNERS).some((o) => ctx.principal.scopes.has(o.writeScope as never));
    if (!writesAny) requireScopes(ctx, Object.values(MetafieldOwnerType), 'write');
    const ownerType = await ownerTypeOfDefinition(ctx.em, id);
    if (!ownerType || !ctx.principal.scopes.has(METAFIELD_OWNERS[ownerType].readScope as never)) {
      throw new NotFoundError('MetafieldDefinition', id);
    }
    requireScopes(ctx, [ownerType], 'write');
    return inTransaction(ctx.em, (tx) => deleteMetafieldDefinition(tx, ctx.principal, id));
  }

  @Authorized()
  @Mutation(() => [Metafield], {
    description:
      'Sets up to 25 metafield values on any records, all or none: a key without a definition, a value not of ' +
      "its definition's type or a record that does not exist is BAD_USER_INPUT naming the entry's index and " +
      "key. Each record changed gets a new version and an event. Answers the values in the entries' order. " +
      WRITE_SCOPES,
  })
  async metafieldsSet(
    @Arg('metafields', () => [MetafieldsSetInput], { description: 'At most 25 values' })
    metafields: MetafieldsSetInput[],
    @Ctx() ctx: GraphQLContext,
  ) {
    requireScopes(
      ctx,
      metafields.map((m) => m.ownerType),
      'write',
    );
    return inTransaction(ctx.em, (tx) => setMetafields(tx, ctx.principal, metafields));
  }

  @Authorized()
  @Mutation(() => [MetafieldIdentifier], {
    nullable: 'items',
    description:
      'Deletes up to 25 metafield values, all or none (a key without a definition is BAD_USER_INPUT). Answers ' +
      `each entry that held a value, null for one that held none. ${WRITE_SCOPES}`,
  })
  async metafieldsDelete(
    @Arg('metafields', () => [MetafieldIdentifierInput], { description: 'At most 25 metafields' })
    metafields: MetafieldIdentifierInput[],
    @Ctx() ctx: GraphQLContext,
  ) {
    requireScopes(
      ctx,
      metafields.map((m) => m.ownerType),
      'write',
    );
    return inTransaction(ctx.em, (tx) => deleteMetafields(tx, ctx.principal, metafields));
  }
}
