import { type OrderNumberFormat, orderNumberFormat, PLAIN_NUMBERS } from '../domain/order-number.js';
import type { GraphQLContext } from './context.js';

/** The store's order number format, read once per request (a search and every `displayNumber` share it). */
export async function requestOrderNumberFormat({ loaders }: GraphQLContext): Promise<OrderNumberFormat> {
  const format = await loaders
    .byId('orderNumberFormat', async (em) => [{ id: 1, ...(await orderNumberFormat(em)) }])
    .load(1);
  return format ?? PLAIN_NUMBERS;
}
