import { toCents } from './money.js';

/**
 * An order's amounts are exact and fixed when it is placed (line items are snapshots): the cart is
 * Σ price × quantity of its lines, the total is cart + shipping + tax. In cents.
 */
export function cartCents(lines: Iterable<{ price: string; quantity: number }>): bigint {
  let cart = 0n;
  for (const line of lines) cart += toCents(line.price) * BigInt(line.quantity);
  return cart;
}

export function totalCents(cart: bigint, shippingPrice: string, tax: string): bigint {
  return cart + toCents(shippingPrice) + toCents(tax);
}
