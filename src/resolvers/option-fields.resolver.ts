import { FieldResolver, Resolver, Root } from 'type-graphql';
import { Image } from '../entities/image.entity.js';
import { OptionThumbnail } from '../entities/option-thumbnail.entity.js';
import { Projects } from '../reads/field-reads.js';
import { type Projection, projectRow } from '../reads/projection.js';
import type { ReadRow } from '../reads/read-row.js';

const IMAGE: Projection = { one: 'image' };

@Resolver(() => OptionThumbnail)
export class ThumbnailFieldsResolver {
  // The `image` relation's row: the read plan loads it with this field's selection.
  @Projects(IMAGE)
  @FieldResolver(() => Image, { nullable: true, description: 'The swatch image, when the value is pictured by one' })
  image(@Root() thumbnail: ReadRow<OptionThumbnail, { $image: ReadRow<Image> | null }>): ReadRow<Image> | null {
    return projectRow(thumbnail, IMAGE);
  }
}
