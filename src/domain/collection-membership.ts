import type { EntityManager } from '@mikro-orm/postgresql';
import { CollectionType } from '../entities/collection.entity.js';
import { likeEscape } from './text-match.js';

/** Rule fields and conditions of the spec, by code. */
export const RuleField = { Title: 0, Vendor: 1, Type: 2, Price: 3, Tag: 4, Weight: 5, VariantTitle: 6 } as const;
export const RuleCondition = {
  IsExactly: 0,
  StartsWith: 1,
  EndsWith: 2,
  Contains: 3,
  DoesNotContain: 4,
  Equal: 5,
  NotEqual: 6,
  GreaterThan: 7,
  LessThan: 8,
} as const;

/** Which conditions each field accepts (docs/decisions.md#collections); also used to validate writes. */
export const CONDITIONS_BY_FIELD: Record<number, readonly number[]> = {
  [RuleField.Title]: [0, 1, 2, 3, 4],
  [RuleField.Vendor]: [0, 1, 2, 3, 4],
  [RuleField.Type]: [0, 1, 2, 3, 4],
  [RuleField.VariantTitle]: [0, 1, 2, 3, 4],
  [RuleField.Price]: [5, 6, 7, 8],
  [RuleField.Weight]: [5, 6, 7, 8],
  [RuleField.Tag]: [0, 3, 4],
};

export interface MembershipRule {
  field: number;
  condition: number;
  value: string;
}

export interface CollectionDefinition {
  id: number;
  type: number;
  rulesMatchCondition: number | null;
  rules: MembershipRule[];
}

/** A price or weight rule's value: a plain decimal (the edit refuses others; the SQL casts it to numeric). */
export const DECIMAL = /^-?\d+(\.\d+)?$/;
const TEXT_COLUMNS: Record<number, string> = {
  [RuleField.Title]: 'p.title',
  [RuleField.Vendor]: "coalesce(p.vendor, '')",
  [RuleField.Type]: 'p.type',
};
const COMPARISONS: Record<number, string> = { 5: '=', 6: '<>', 7: '>', 8: '<' };

/**
 * SQL predicate on product `p` for one rule. Only fixed SQL fragments are concatenated; the rule's
 * value always travels as a bound parameter.
 */
function rulePredicate(rule: MembershipRule, params: unknown[]): string {
  const bind = (value: unknown) => {
    params.push(value);
    return '?';
  };
  const text = (column: string): string => {
    switch (rule.condition) {
      case RuleCondition.IsExactly:
        return `lower(${column}) = lower(${bind(rule.value)})`;
      case RuleCondition.StartsWith:
        return `${column} ilike ${bind(`${likeEscape(rule.value)}%`)}`;
      case RuleCondition.EndsWith:
        return `${column} ilike ${bind(`%${likeEscape(rule.value)}`)}`;
      case RuleCondition.Contains:
        return `${column} ilike ${bind(`%${likeEscape(rule.value)}%`)}`;
      case RuleCondition.DoesNotContain:
        return `${column} not ilike ${bind(`%${likeEscape(rule.value)}%`)}`;
      default:
        return 'false';
    }
  };
  const numeric = (column: string): string => {
    const op = COMPARISONS[rule.condition];
    return op && DECIMAL.test(rule.value) ? `${column} ${op} ${bind(rule.value)}::numeric` : 'false';
  };
  switch (rule.field) {
    case RuleField.Title:
    case RuleField.Vendor:
    case RuleField.Type:
      return text(TEXT_COLUMNS[rule.field]);
    case RuleField.Price:
      // Every product has at least one variant carrying a price (single-variant products too).
      return `exists (select 1 from product_variant v where v.product_id = p.id and ${numeric('v.price')})`;
    case RuleField.Weight:
      return numeric('p.shipping_weight::numeric');
    case RuleField.VariantTitle: {
      const title = "array_to_string(v.option_values, ' / ')";
      if (rule.condition === RuleCondition.DoesNotContain) {
        return (
          `not exists (select 1 from product_variant v where v.product_id = p.id ` +
          `and ${title} ilike ${bind(`%${likeEscape(rule.value)}%`)})`
        );
      }
      return `exists (select 1 from product_variant v where v.product_id = p.id and ${text(title)})`;
    }
    case RuleField.Tag:
      switch (rule.condition) {
        case RuleCondition.IsExactly:
          return `exists (select 1 from unnest(p.tags) t where lower(t) = lower(${bind(rule.value)}))`;
        case RuleCondition.Contains:
          return `exists (select 1 from unnest(p.tags) t where t ilike ${bind(`%${likeEscape(rule.value)}%`)})`;
        case RuleCondition.DoesNotContain:
          return `not exists (select 1 from unnest(p.tags) t where t ilike ${bind(`%${likeEscape(rule.value)}%`)})`;
        default:
          return 'false';
      }
    default:
      return 'false';
  }
}

/** The member query of one collection: manual links, or the rules evaluated against products. */
function memberQuery(collection: CollectionDefinition, params: unknown[]): string {
  if (collection.type === CollectionType.Manual) {
    params.push(collection.id);
    return `select cp.collection_id as collection_id, cp.product_id as product_id, cp.position as ord
      from collection_product cp where cp.collection_id = ?`;
  }
  params.push(collection.id);
  const head = `select ?::int as collection_id, p.id as product_id, p.id as ord from product p`;
  if (collection.rules.length === 0) return `${head} where false`;
  const joiner = collection.rulesMatchCondition === 1 ? ' and ' : ' or ';
  return `${head} where ${collection.rules.map((r) => `(${rulePredicate(r, params)})`).join(joiner)}`;
}

/**
 * Member product ids of several collections in one statement, computed when read, so rule-based
 * membership never drifts from the catalogue. Manual members keep the merchant's order; rule
 * members come by product id.
 */
export async function memberProductIds(
  em: EntityManager,
  collections: CollectionDefinition[],
): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>(collections.map((c) => [c.id, []]));
  if (collections.length === 0) return result;
  const params: unknown[] = [];
  const union = collections.map((c) => `(${memberQuery(c, params)})`).join(' union all ');
  const rows = await em
    .getConnection()
    .execute<{ collection_id: number; product_id: number }[]>(
      `select collection_id, product_id from (${union}) m order by collection_id, ord`,
      params,
      'all',
      em.getTransactionContext(),
    );
  for (const row of rows) result.get(row.collection_id)?.push(row.product_id);
  return result;
}
