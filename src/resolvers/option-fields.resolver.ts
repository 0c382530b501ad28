import { FieldResolver, Resolver, Root } from 'type-graphql';
import { Image } from '../entities/image.entity.js';
import { OptionThumbnail } from '../entities/option-thumbnail.entity.js';
import { ProductOption } from '../entities/product-option.entity.js';
import { loaded, RowProperty, type ReadRow } from '../reads/read-model.js';

@Resolver(() => ProductOption)
export class OptionFieldsResolver {
  @RowProperty()
  @FieldResolver(() => [OptionThumbnail], { description: 'How each value is pictured' })
  thumbnails(@Root() option: ReadRow<ProductOption>): OptionThumbnail[] {
    return loaded(option, 'thumbnails');
  }
}

@Resolver(() => OptionThumbnail)
export class ThumbnailFieldsResolver {
  @FieldResolver(() => Image, { nullable: true, description: 'The swatch image, when the value is pictured by one' })
  image(@Root() thumbnail: ReadRow<OptionThumbnail>): Image | null {
    return loaded(thumbnail, 'image');
  }
}
