import type { EntityManager } from '@mikro-orm/postgresql';
import { StoreSettings } from '../entities/store-settings.entity.js';

/** The store's display prefix and suffix of order numbers (one settings row; none when absent). */
export interface OrderNumberFormat {
  prefix: string;
  suffix: string;
}

/** The format the settings row gives (none when there is no row). */
export function formatOf(
  settings: Pick<StoreSettings, 'orderNumberPrefix' | 'orderNumberSuffix'> | null,
): OrderNumberFormat {
  return { prefix: settings?.orderNumberPrefix ?? '', suffix: settings?.orderNumberSuffix ?? '' };
}

/** Bare ids: the format of a store without a settings row, and of a search that needs none. */
export const PLAIN_NUMBERS: OrderNumberFormat = formatOf(null);

export async function orderNumberFormat(em: EntityManager): Promise<OrderNumberFormat> {
  return formatOf(await em.findOne(StoreSettings, { id: 1 }));
}

/** An order's number as the store shows it: prefix, id, suffix. */
export function displayNumber(id: number, format: OrderNumberFormat): string {
  return `${format.prefix}${id}${format.suffix}`;
}

/** The order id a shown number stands for (prefix and suffix taken off when present). */
export function idPartOf(shown: string, format: OrderNumberFormat): string {
  let number = shown.trim();
  if (format.prefix && number.startsWith(format.prefix)) number = number.slice(format.prefix.length);
  if (format.suffix && number.endsWith(format.suffix)) number = number.slice(0, -format.suffix.length);
  return number;
}
