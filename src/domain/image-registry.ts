import type { EntityManager } from '@mikro-orm/postgresql';
import validator from 'validator';
import { Image } from '../entities/image.entity.js';
import { type FieldError, ValidationError } from './errors.js';

const URL_LIMIT = 2048;
const MAX_SIZE_LIMIT = 100_000;

/**
 * The minimal image registry: an image is an absolute http(s) URL and the size of its largest
 * rendition. Products, variants, thumbnails and collections refer to images by these ids until an
 * upload API exists.
 */
export async function createImage(em: EntityManager, url: string, maxSize: number): Promise<Image> {
  const errors: FieldError[] = [];
  const path = url.trim();
  if (
    path.length > URL_LIMIT ||
    !validator.isURL(path, { protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  ) {
    errors.push({ field: 'url', message: 'must be an absolute http(s) URL' });
  }
  if (!Number.isInteger(maxSize) || maxSize < 1 || maxSize > MAX_SIZE_LIMIT) {
    errors.push({ field: 'maxSize', message: `must be an integer from 1 to ${MAX_SIZE_LIMIT}` });
  }
  if (errors.length) throw new ValidationError(errors);
  const image = Object.assign(new Image(), { path, maxSize });
  em.persist(image);
  await em.flush();
  return image;
}
