import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver, UseMiddleware, Info } from 'type-graphql';
import { SCOPES } from '../auth/scopes.js';
import { issueApiToken, revokeApiToken } from '../auth/token-management.js';
import { inTransaction } from '../domain/transaction.js';
import { ApiToken } from '../entities/api-token.entity.js';
import { readPage } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import type { GraphQLContext } from '../schema/context.js';
import { inputGuard } from '../schema/input-guard.middleware.js';
import { PageArgs, PageOf, sortableFields } from '../schema/pagination.js';

export const apiTokenSort = sortableFields('ApiToken', { id: 'id', name: 'name', createdAt: 'createdAt', lastUsedAt: 'lastUsedAt' });

@ObjectType()
export class ApiTokenPage extends PageOf(ApiToken) {}

@ArgsType()
export class ApiTokenListArgs extends PageArgs {
  @Field(() => [apiTokenSort.SortInput], { nullable: true })
  sort?: InstanceType<typeof apiTokenSort.SortInput>[];
}

@ObjectType({ description: 'A new token and its secret. The secret is shown in this answer only; the service keeps its hash.' })
export class CreatedApiToken {
  @Field(() => ApiToken)
  token!: ApiToken;

  @Field({ description: 'the bearer secret (`sk_…`): store it now, it cannot be read again' })
  secret!: string;
}

/** API tokens (decisions §4), all under `manage_tokens`. */
@Resolver(() => ApiToken)
@UseMiddleware(inputGuard)
export class ApiTokenResolver {
  @Authorized('manage_tokens')
  @Query(() => ApiTokenPage, { description: 'Every API token, revoked ones included (see revokedAt); never a secret' })
  apiTokens(@Args(() => ApiTokenListArgs) args: ApiTokenListArgs, @Ctx() { em }: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return readPage(em, 'ApiToken', selectionOf(info), {}, args, apiTokenSort.columns);
  }

  @Authorized('manage_tokens')
  @Mutation(() => CreatedApiToken, { description: `Creates a token with the given scopes (only scopes the caller's token holds). Scopes: ${SCOPES.join(', ')}` })
  createApiToken(
    @Arg('name', () => String, { description: 'who or what the token is for' }) name: string,
    @Arg('scopes', () => [String]) scopes: string[],
    @Ctx() { em, principal }: GraphQLContext,
  ): Promise<CreatedApiToken> {
    return inTransaction(em, (tx) => issueApiToken(tx, principal, name, scopes));
  }

  @Authorized('manage_tokens')
  @Mutation(() => ApiToken, { description: 'Revokes a token: from the next request on it is refused (401) by every server process' })
  revokeApiToken(@Arg('id', () => Int) id: number, @Ctx() { em }: GraphQLContext) {
    return inTransaction(em, (tx) => revokeApiToken(tx, id));
  }
}
