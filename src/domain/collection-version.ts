import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Collection, CollectionType } from '../entities/collection.entity.js';
import { CollectionRule } from '../entities/collection-rule.entity.js';
import { memberProductIds } from './collection-membership.js';

/**
 * The version a collection shows (its ETag, what `expectedVersion` compares with;
 * docs/choices.md#versions-that-follow-relations). A manual collection's is the stored one: every
 * write that changes what it shows, its links included, moves it under the lock. A rule-based
 * collection's members follow from the catalogue, which changes without touching the collection;
 * so its version is derived when read from what it answers: a 31-bit fingerprint (SHA-256) of
 * its stored version (which moves with every write to the collection, its rules included) and
 * its member ids in order. It changes when the members change, and only then or on a write, and
 * it never comes back to an earlier value unless two fingerprints collide (1 in 2^31).
 */
export function ruleBasedVersion(stored: number, memberIds: readonly number[]): number {
  const digest = createHash('sha256')
    .update(`${stored}:${memberIds.join(',')}`)
    .digest();
  // 1 … 2^31 − 1: a GraphQL Int, and never 0.
  return digest.readUInt32BE(0) >>> 1 || 1;
}

/** The version `collection` (a locked entity) shows now, computed in the caller's transaction. */
export async function shownCollectionVersion(em: EntityManager, collection: Collection): Promise<number> {
  if (collection.type === CollectionType.Manual) return collection.version;
  const rules = await em.find(CollectionRule, { collection }, { orderBy: { position: 'asc', id: 'asc' } });
  const members = await memberProductIds(em, [
    { id: collection.id, type: collection.type, rulesMatchCondition: collection.rulesMatchCondition, rules },
  ]);
  return ruleBasedVersion(collection.version, members.get(collection.id) ?? []);
}
