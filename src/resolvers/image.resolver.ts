import { Arg, Authorized, Ctx, Int, Mutation, Resolver, UseMiddleware } from 'type-graphql';
import { createImage } from '../domain/image-registry.js';
import { inTransaction } from '../domain/transaction.js';
import { Image } from '../entities/image.entity.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@Resolver(() => Image)
@UseMiddleware(inputGuard)
export class ImageResolver {
  // Images serve products and collections alike: either write scope may register one.
  @Authorized('write_products', 'write_collections')
  @Mutation(() => Image, {
    description: 'Registers an image by its absolute http(s) URL, so products and collections can refer to its id',
  })
  createImage(
    @Arg('url', () => String, { description: 'Absolute http(s) URL of the image' }) url: string,
    @Arg('maxSize', () => Int, { description: 'Largest rendition size in pixels' }) maxSize: number,
    @Ctx() { em }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => createImage(tx, url, maxSize));
  }
}
