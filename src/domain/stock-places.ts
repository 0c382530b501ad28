import type { EntityManager } from '@mikro-orm/postgresql';
import { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { type FieldError, ValidationError } from './errors.js';

function title(value: string, errors: FieldError[]): string {
  const trimmed = value.trim();
  if (!trimmed) errors.push({ field: 'title', message: 'must not be empty' });
  if (trimmed.length > 255) errors.push({ field: 'title', message: 'must be at most 255 characters' });
  return trimmed;
}

export async function createWarehouse(em: EntityManager, name: string): Promise<Warehouse> {
  const errors: FieldError[] = [];
  const warehouse = Object.assign(new Warehouse(), { title: title(name, errors) });
  if (errors.length) throw new ValidationError(errors);
  await em.persist(warehouse).flush();
  return warehouse;
}

export async function createShippingCarrier(em: EntityManager, name: string, url: string): Promise<ShippingCarrier> {
  const errors: FieldError[] = [];
  const carrier = Object.assign(new ShippingCarrier(), { title: title(name, errors), url: url.trim() });
  if (!URL.canParse(carrier.url) || !/^https?:/.test(carrier.url))
    errors.push({ field: 'url', message: 'must be an http(s) URL' });
  if (errors.length) throw new ValidationError(errors);
  await em.persist(carrier).flush();
  return carrier;
}
