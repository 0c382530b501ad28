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
import { BULK_SCOPES, cancelBulkOperation, ownsBulkOperation, startBulkMutation } from '../domain/bulk-operation.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { inTransaction } from '../domain/transaction.js';
import { BulkOperation, bulkOperationList } from '../entities/bulk-operation.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of bulk operations' })
export class BulkOperationPage extends PageOf(BulkOperation) {}

@ArgsType()
export class BulkOperationListArgs extends PageArgs {
  @Field(() => [bulkOperationList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties',
  })
  sort?: InstanceType<typeof bulkOperationList.SortInput>[];
}

/**
 * Bulk operations (docs/decisions.md#bulk-writes). A token sees only the operations it started; any
 * scope some write needs admits it (each line is held to the scope of its own write when it runs).
 */
@Resolver(() => BulkOperation)
@UseMiddleware(inputGuard)
export class BulkOperationResolver {
  @Authorized(...BULK_SCOPES)
  @Query(() => BulkOperation, { nullable: true, description: 'One bulk operation of this token by id' })
  async bulkOperation(
    @Arg('id', () => Int, { description: 'Bulk operation id' }) id: number,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    if (!(await ownsBulkOperation(em, principal, id))) throw new NotFoundError('BulkOperation', id);
    return readRecord(em, info, 'BulkOperation', id);
  }

  @Authorized(...BULK_SCOPES)
  @Query(() => BulkOperationPage, {
    nullable: true,
    description: 'The bulk operations this token started, one page at a time (newest first by default)',
  })
  bulkOperations(
    @Args(() => BulkOperationListArgs) args: BulkOperationListArgs,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const own = { tokenId: principal.tokenId };
    return readPage(em, 'BulkOperation', selectionOf(info), own, args, bulkOperationList.columns);
  }

  @Authorized(...BULK_SCOPES)
  @Mutation(() => BulkOperation, {
    description:
      'Runs `mutation` (a document holding one mutation field) once per line of an upload of variables ' +
      '(POST /api/v1/bulk-operations/uploads), in the background, in file order, each line exactly once, ' +
      'as the token that calls this (its scopes, per line); charged once. Results: ' +
      'GET /api/v1/bulk-operations/{id}/results',
  })
  async bulkOperationRunMutation(
    @Arg('mutation', { description: 'A GraphQL document with one mutation field, e.g. `mutation ($id: Int!) { … }`' })
    mutation: string,
    @Arg('uploadId', () => Int, { description: 'The upload of variables, one object per line' }) uploadId: number,
    @Ctx() { em, principal, bulkMutations }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    if (!bulkMutations) {
      // Not over /graphql: a bulk line (which may not start bulk operations) or a REST operation.
      throw new ValidationError([{ field: 'mutation', message: 'bulk operations are started over /graphql only' }]);
    }
    const problems = bulkMutations.check(mutation);
    if (problems.length) throw new ValidationError(problems);
    const operation = await inTransaction(em, (tx) => startBulkMutation(tx, principal, mutation, uploadId));
    // Read as made (created) before this process's runners are woken, as REST answers it.
    try {
      return await readRecord(em, info, 'BulkOperation', operation.id);
    } finally {
      bulkMutations.started();
    }
  }

  @Authorized(...BULK_SCOPES)
  @Mutation(() => BulkOperation, {
    description:
      'Cancels a bulk operation of this token: the line under way is finished, no later line starts. ' +
      'Canceling again answers the same; a completed or failed operation is a CONFLICT',
  })
  async cancelBulkOperation(
    @Arg('id', () => Int, { description: 'Bulk operation id' }) id: number,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    await inTransaction(em, (tx) => cancelBulkOperation(tx, principal, id));
    return readRecord(em, info, 'BulkOperation', id);
  }
}
