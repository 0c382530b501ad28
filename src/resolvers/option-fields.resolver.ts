import { FieldResolver, Resolver, Root } from 'type-graphql';
import { Image } from '../entities/image.entity.js';
import { OptionThumbnail } from '../entities/option-thumbnail.entity.js';
import { Reads } from '../reads/field-reads.js';
import type { ReadRow } from '../reads/read-row.js';

@Resolver(() => OptionThumbnail)
export class ThumbnailFieldsResolver {
  // Returns the `image` relation: the read plan loads it with this field's selection.
  @Reads('image')
  @FieldResolver(() => Image, { nullable: true, description: 'The swatch image, when the value is pictured by one' })
  image(@Root() thumbnail: ReadRow<OptionThumbnail, { $image: ReadRow<Image> | null }>): ReadRow<Image> | null {
    return thumbnail.$image;
  }
}
