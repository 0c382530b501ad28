import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Image } from '../entities/image.entity.js';
import { OptionThumbnail } from '../entities/option-thumbnail.entity.js';
import { ProductOption } from '../entities/product-option.entity.js';
import type { GraphQLContext } from '../schema/context.js';

@Resolver(() => ProductOption)
export class OptionFieldsResolver {
  @FieldResolver(() => [OptionThumbnail])
  thumbnails(@Root() option: ProductOption, @Ctx() { loaders }: GraphQLContext) {
    // Options read by the product's loader come with their thumbnails; others load them batched.
    if (option.thumbnails.isInitialized()) return option.thumbnails.getItems();
    return loaders
      .children(
        'option.thumbnails',
        (em, ids) =>
          em.find(OptionThumbnail, { option: { $in: ids } }, { populate: ['image'], orderBy: [{ option: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (t) => t.option.id,
      )
      .load(option.id);
  }
}

@Resolver(() => OptionThumbnail)
export class ThumbnailFieldsResolver {
  @FieldResolver(() => Image, { nullable: true, description: 'the swatch image, when the value is pictured by one' })
  image(@Root() thumbnail: OptionThumbnail): Image | null {
    // Loaded with the thumbnails (populate), so no query per thumbnail.
    return thumbnail.image?.unwrap() ?? null;
  }
}
