import type { GraphQLResolveInfo } from 'graphql';
import {
  Arg,
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  Info,
  Int,
  Mutation,
  ObjectType,
  Query,
  Resolver,
  UseMiddleware,
} from 'type-graphql';
import { SCOPES } from '../auth/scopes.js';
import { issueApiToken, revokeApiToken } from '../auth/token-management.js';
import { inTransaction } from '../domain/transaction.js';
import { ApiToken, apiTokenList } from '../entities/api-token.entity.js';
import { readPage } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of API tokens' })
export class ApiTokenPage extends PageOf(ApiToken) {}

@ArgsType()
export class ApiTokenListArgs extends PageArgs {
  @Field(() => [apiTokenList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties (default id descending)',
  })
  sort?: InstanceType<typeof apiTokenList.SortInput>[];
}

@ObjectType({
  description: 'A new token and its secret. The secret is shown in this answer only; the service keeps its hash.',
})
export class CreatedApiToken {
  @Field(() => ApiToken, { description: 'The token created' })
  token!: ApiToken;

  @Field({ description: 'The bearer secret (`sk_…`): store it now, it cannot be read again' })
  secret!: string;
}

const SCOPE_LIST = SCOPES.join(', ');
const CREATE_TOKEN_DESCRIPTION = [
  "Creates a token with the given scopes (only scopes the caller's token holds).",
  `Scopes: ${SCOPE_LIST}`,
].join(' ');

/** API tokens (docs/decisions.md#api-tokens), all under `manage_tokens`. */
@Resolver(() => ApiToken)
@UseMiddleware(inputGuard)
export class ApiTokenResolver {
  @Authorized('manage_tokens')
  @Query(() => ApiTokenPage, { description: 'Every API token, revoked ones included (see revokedAt); never a secret' })
  apiTokens(
    @Args(() => ApiTokenListArgs) args: ApiTokenListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readPage(em, 'ApiToken', selectionOf(info), {}, args, apiTokenList.columns);
  }

  @Authorized('manage_tokens')
  @Mutation(() => CreatedApiToken, {
    description: CREATE_TOKEN_DESCRIPTION,
  })
  createApiToken(
    @Arg('name', () => String, { description: 'Who or what the token is for' }) name: string,
    @Arg('scopes', () => [String], { description: "The scopes to grant, each one the caller's token holds" })
    scopes: string[],
    @Ctx() { em, principal }: GraphQLContext,
  ): Promise<CreatedApiToken> {
    return inTransaction(em, (tx) => issueApiToken(tx, principal, name, scopes));
  }

  @Authorized('manage_tokens')
  @Mutation(() => ApiToken, {
    description:
      "Revokes a token (only one whose scopes the caller's token all holds): " +
      'from the next request on it is refused (401) by every server process',
  })
  revokeApiToken(
    @Arg('id', () => Int, { description: 'Id of the API token to revoke' }) id: number,
    @Ctx() { em, principal }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => revokeApiToken(tx, principal, id));
  }
}
