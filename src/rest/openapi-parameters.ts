import { DEFAULT_ANSWER_MAX_BYTES } from '../config.js';
import { EVENT_TYPES } from '../domain/event-types.js';
import { PAGE_SIZE } from '../schema/page-size.js';
import { CURSOR, integerSchema, POSITIVE_INT } from './integer-param.js';
import type { JsonSchema } from './json-schema.js';
import { PAGE_NUMBER, PAGE_SIZE_RANGE } from './query-params.js';
import type { DerivedRoute } from './rest-api.js';
import type { RouteSpec } from './route-spec.js';

// The path and query parameters of an operation in the OpenAPI document (src/rest/openapi-operation.ts):
// what each kind of route reads from its URL, in the ranges the REST layer checks.

/** The answer's byte bound as the reference states it (src/reads/answer-bytes.ts). */
export const ANSWER_BOUND = `${DEFAULT_ANSWER_MAX_BYTES / (1024 * 1024)} MiB unless ANSWER_MAX_BYTES sets another`;

export function queryParameters(route: DerivedRoute): JsonSchema[] {
  const resource = route.resource;
  const params: JsonSchema[] = [];
  const fields = Object.keys(resource.fields);
  const relations = Object.keys(resource.expand);
  if (route.kind === 'list' || route.kind === 'search' || route.kind === 'position') {
    if (route.kind !== 'position')
      params.push({
        name: 'page',
        in: 'query',
        schema: { ...integerSchema(PAGE_NUMBER), default: 1 },
        description: 'page number',
      });
    params.push(
      {
        name: 'size',
        in: 'query',
        schema: { ...integerSchema(PAGE_SIZE_RANGE), default: PAGE_SIZE.default },
        description:
          `page size; a page whose records' JSON would be more than the answer bound (${ANSWER_BOUND}) is ` +
          'a 400 `/problems/answer-too-large` naming `size`: ask a smaller page or fewer fields',
      },
      {
        name: 'sort',
        in: 'query',
        schema: { type: 'string' },
        description:
          `comma-separated; \`!field\` or \`-field\` descending; default ` +
          `\`!id\`; id always breaks ties. Sortable: ` +
          `${Object.keys(resource.sorts).join(', ')}`,
      },
    );
  }
  if (route.kind === 'list') {
    for (const [name, arg] of Object.entries(route.queryArgs ?? {})) {
      params.push({
        name,
        in: 'query',
        schema: integerSchema(POSITIVE_INT),
        description: `only the records whose \`${name}\` is this (GraphQL: \`${arg}\`)`,
      });
    }
  }
  if (route.kind === 'feed') {
    params.push(
      {
        name: 'after',
        in: 'query',
        schema: integerSchema(CURSOR),
        description: 'id of the last event read (`_links.next` carries it); omit it to start at the oldest kept',
      },
      {
        name: 'size',
        in: 'query',
        schema: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default },
        description:
          "events per page at most; a page ends early where its events' JSON reaches the answer bound " +
          `(${ANSWER_BOUND}): \`_links.next\` continues after its last event`,
      },
      {
        name: 'types',
        in: 'query',
        schema: { type: 'string' },
        description:
          'comma-separated event types, or a kind followed by `.*` for all of its types ' +
          '(`fulfilment.created,order.*`). ' +
          `Types: ${EVENT_TYPES.join(', ')}`,
      },
    );
  }
  if (route.kind !== 'position') {
    params.push({
      name: 'fields',
      in: 'query',
      schema: { type: 'string' },
      description:
        `Comma-separated subset of: ${fields.join(', ')}. Only these keys are sent, so ` +
        `the record's \`required\` list then holds for these keys only.`,
    });
    params.push({
      name: 'expand',
      in: 'query',
      schema: { type: 'string' },
      description: relations.length
        ? `Comma-separated relations to add: ${relations.join(', ')}, or \`all\``
        : `\`all\` is accepted (and adds nothing): a ${resource.name} has no relations to ` +
          `expand; its related records are always included`,
    });
  }
  return params;
}

export function pathParameters(route: RouteSpec): JsonSchema[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: integerSchema(POSITIVE_INT),
  }));
}
