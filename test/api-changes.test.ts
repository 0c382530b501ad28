// API changes that cannot surprise a client (issue 41 item 3; docs/operations.md#api-versioning):
// the schema the service builds and the OpenAPI document it serves against the last release's
// copies (api/last-release/), with GraphQL Inspector's core and a structural diff; a breaking change
// fails unless CHANGELOG.md lists it with a deprecation period. Deliberately breaking changes show
// the check failing, and passing once announced; a deprecated REST key is marked in the OpenAPI
// document and announced with Deprecation and Sunset on the answers that hold it.
import { readFile } from 'node:fs/promises';
import {
  buildASTSchema,
  type DocumentNode,
  type GraphQLSchema,
  Kind,
  type ObjectTypeDefinitionNode,
  parse,
  printSchema,
  visit,
} from 'graphql';
import { buildStoreSchema } from '../src/graphql/build-schema.js';
import { releaseCopy } from '../src/rest/openapi-release.js';
import { productResource } from '../src/rest/resources/product.resource.js';
import { deriveRestApi } from '../src/rest/rest-api.js';
import { routes } from '../src/rest/routes.js';
import {
  type ApiChange,
  changelogEntries,
  checkApiChanges,
  lastRelease,
  openApiBreakingChanges,
} from './support/api-changes.js';
import { startTestService, type TestService } from './support/harness.js';

type Json = Record<string, any>;

let release: Awaited<ReturnType<typeof lastRelease>>;
let changelog: string;
let schema: GraphQLSchema;
let served: Json;
let service: TestService;

beforeAll(async () => {
  release = await lastRelease();
  changelog = await readFile('CHANGELOG.md', 'utf8');
  schema = await buildStoreSchema();
  service = await startTestService({ publicUrl: 'https://shop.example' });
  served = (await service.get('/api/v1/openapi.json', null)).body;
});

afterAll(async () => {
  await service.stop();
});

const ids = (changes: ApiChange[]) => changes.map((c) => c.id).sort();
/** A copy of the served document to break on purpose. */
const copy = (): Json => structuredClone(served);

/** The current schema with its SDL edited: fields removed, types changed, arguments added. */
function editedSchema(edit: (type: ObjectTypeDefinitionNode) => ObjectTypeDefinitionNode | undefined): GraphQLSchema {
  const document = visit(parse(printSchema(schema)), {
    enter: (node) => (node.kind === Kind.OBJECT_TYPE_DEFINITION ? (edit(node) ?? node) : undefined),
  }) as DocumentNode;
  return buildASTSchema(document);
}

const namedType = (name: string) => ({ kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: name } }) as const;

/** Order.email removed, Product.title an Int!, Query.orders with a new required argument, Customer.note renamed. */
function breakingSchema(): GraphQLSchema {
  return editedSchema((type) => {
    const fields = type.fields ?? [];
    if (type.name.value === 'Order') return { ...type, fields: fields.filter((f) => f.name.value !== 'email') };
    if (type.name.value === 'Product')
      return {
        ...type,
        fields: fields.map((f) =>
          f.name.value === 'title' ? { ...f, type: { kind: Kind.NON_NULL_TYPE, type: namedType('Int') } } : f,
        ),
      };
    if (type.name.value === 'Query')
      return {
        ...type,
        fields: fields.map((f) =>
          f.name.value === 'orders'
            ? {
                ...f,
                arguments: [
                  ...(f.arguments ?? []),
                  {
                    kind: Kind.INPUT_VALUE_DEFINITION,
                    name: { kind: Kind.NAME, value: 'storeId' },
                    type: { kind: Kind.NON_NULL_TYPE, type: namedType('Int') },
                  },
                ],
              }
            : f,
        ),
      };
    if (type.name.value === 'Customer')
      return {
        ...type,
        fields: fields.map((f) => (f.name.value === 'email' ? { ...f, name: { ...f.name, value: 'mail' } } : f)),
      };
    return undefined;
  });
}

/** CHANGELOG.md with these items added under "Unreleased" → "Breaking changes". */
function announcing(lines: string[]): string {
  return changelog.replace('### Breaking changes\n\nNone.\n', `### Breaking changes\n\n${lines.join('\n')}\n`);
}

const TODAY = new Date('2027-06-01T12:00:00Z');

describe('the API as it is', () => {
  it('has no breaking change against the last release that CHANGELOG.md does not announce', async () => {
    const check = await checkApiChanges({ release, schema, openapi: served, changelog });
    expect(check.failures).toEqual([]);
  });

  it('the last release is recorded: its version has a heading in CHANGELOG.md, its copies parse', () => {
    expect(changelog).toMatch(new RegExp(`^## ${release.version.replace(/\./g, '\\.')}$`, 'm'));
    expect(release.schema.getQueryType()?.getFields().orders).toBeDefined();
    expect(Object.keys(release.openapi.paths).length).toBeGreaterThan(20);
    // The copy is the structure only: no examples, prose or servers (a key called `description` stays).
    expect(release.openapi.servers).toBeUndefined();
    expect(JSON.stringify(release.openapi)).not.toMatch(/"(example|examples|summary)":/);
    expect(release.openapi.components.schemas.Order.description).toBeUndefined();
    expect(release.openapi.components.schemas.Collection.properties.description.type).toBeDefined();
  });

  it('the served document with only its prose, examples or server changed has no breaking change', () => {
    const other = copy();
    other.servers = [{ url: 'https://elsewhere.example' }];
    other.components.schemas.Order.description = 'changed prose';
    expect(openApiBreakingChanges(releaseCopy(served), other)).toEqual([]);
    expect(openApiBreakingChanges(served, releaseCopy(served))).toEqual([]);
  });
});

describe('a deliberately breaking GraphQL change', () => {
  it('fails, naming each change and the CHANGELOG.md line to add', async () => {
    const check = await checkApiChanges({ release, schema: breakingSchema(), openapi: served, changelog });
    expect(ids(check.changes)).toEqual([
      'GraphQL Customer.email',
      'GraphQL Order.email',
      'GraphQL Product.title',
      'GraphQL Query.orders.storeId',
    ]);
    expect(check.failures).toHaveLength(4);
    expect(check.failures.find((f) => f.startsWith('GraphQL Order.email'))).toMatch(
      new RegExp(
        "Field 'email' .*removed.* not in CHANGELOG\\.md; add to CHANGELOG\\.md .*" +
          '- `GraphQL Order\\.email`: .*deprecated YYYY-MM-DD, sunset YYYY-MM-DD',
      ),
    );
  });

  const breaking = [
    'GraphQL Customer.email',
    'GraphQL Order.email',
    'GraphQL Product.title',
    'GraphQL Query.orders.storeId',
  ];

  it('passes once CHANGELOG.md lists every change with a deprecation period whose sunset has passed', async () => {
    const listed = announcing(breaking.map((id) => `- \`${id}\`: going; deprecated 2026-12-01, sunset 2027-03-01.`));
    const check = await checkApiChanges({
      release,
      schema: breakingSchema(),
      openapi: served,
      changelog: listed,
      today: TODAY,
    });
    expect(check.failures).toEqual([]);
  });

  it('fails when the period is under 90 days, the sunset is still to come, or the entry has no dates', async () => {
    const [first, second, third, fourth] = breaking;
    const listed = announcing([
      `- \`${first}\`: deprecated 2027-01-01, sunset 2027-02-01.`,
      `- \`${second}\`: deprecated 2027-01-01, sunset 2027-12-01.`,
      `- \`${third}\`: renamed.`,
      `- \`${fourth}\`: deprecated 2026-12-01, sunset 2027-03-01.`,
    ]);
    const check = await checkApiChanges({
      release,
      schema: breakingSchema(),
      openapi: served,
      changelog: listed,
      today: TODAY,
    });
    expect(check.failures).toEqual([
      expect.stringMatching(
        /^GraphQL Customer\.email: deprecated 2027-01-01, sunset 2027-02-01 is 31 days, less than the 90/,
      ),
      expect.stringMatching(/^GraphQL Order\.email: its sunset 2027-12-01 has not come yet/),
      expect.stringMatching(/^GraphQL Product\.title: .* CHANGELOG\.md lists it without a deprecation period/),
    ]);
  });

  it('fails when the only entry is under the last release (it must come after it)', async () => {
    const items = breaking.map((id) => `- \`${id}\`: deprecated 2026-12-01, sunset 2027-03-01.`).join('\n');
    const old = changelog.replace(`## ${release.version}\n`, `## ${release.version}\n\n${items}\n`);
    expect(changelogEntries(old).length).toBeGreaterThan(changelogEntries(old, release.version).length);
    const check = await checkApiChanges({
      release,
      schema: breakingSchema(),
      openapi: served,
      changelog: old,
      today: TODAY,
    });
    expect(check.failures).toHaveLength(4);
  });

  it('an added field, type or optional argument is not breaking', async () => {
    const added = editedSchema((type) =>
      type.name.value === 'Order'
        ? {
            ...type,
            fields: [
              ...(type.fields ?? []),
              { kind: Kind.FIELD_DEFINITION, name: { kind: Kind.NAME, value: 'giftNote' }, type: namedType('String') },
            ],
          }
        : undefined,
    );
    const check = await checkApiChanges({ release, schema: added, openapi: served, changelog });
    expect(check.failures).toEqual([]);
  });

  it('a @deprecated field needs a reason and a CHANGELOG.md line with its period', async () => {
    const deprecated = editedSchema((type) =>
      type.name.value === 'Order'
        ? {
            ...type,
            fields: (type.fields ?? []).map((f) =>
              f.name.value === 'notes'
                ? {
                    ...f,
                    directives: [
                      { kind: Kind.DIRECTIVE, name: { kind: Kind.NAME, value: 'deprecated' }, arguments: [] },
                    ],
                  }
                : f,
            ),
          }
        : undefined,
    );
    const check = await checkApiChanges({ release, schema: deprecated, openapi: served, changelog });
    expect(check.failures).toEqual([
      'GraphQL Order.notes: @deprecated without a reason (say what to use instead, and the sunset)',
      'GraphQL Order.notes: deprecated, but CHANGELOG.md does not list it with its period',
    ]);
  });
});

describe('a deliberately breaking REST change', () => {
  /** A key removed, a key retyped, a body key made required, a route removed, a parameter made required. */
  function breakingDocument(): Json {
    const broken = copy();
    const order = broken.components.schemas.Order;
    delete order.properties.email;
    order.required = order.required.filter((k: string) => k !== 'email');
    broken.components.schemas.Product.properties.price.type = ['string', 'null'];
    const create = broken.paths['/api/v1/collections'].post.requestBody.content['application/json'].schema;
    create.required = [...create.required, 'seo_meta'];
    delete broken.paths['/api/v1/orders/{id}/page'];
    const list = broken.paths['/api/v1/orders'].get;
    list.parameters = list.parameters.map((p: Json) => (p.name === 'sort' ? { ...p, required: true } : p));
    return broken;
  }

  it('fails, naming each change', async () => {
    const changes = openApiBreakingChanges(release.openapi, breakingDocument());
    expect(changes).toEqual(
      expect.arrayContaining([
        { id: 'REST Order.email', message: 'key removed' },
        { id: 'REST Product.price', message: 'type number became string,null' },
        { id: 'REST POST /api/v1/collections body.seo_meta', message: 'now required' },
        { id: 'REST GET /api/v1/orders/{id}/page', message: 'operation removed' },
        { id: 'REST GET /api/v1/orders query sort', message: 'parameter now required' },
      ]),
    );
    expect(changes).toHaveLength(5);
    const check = await checkApiChanges({ release, schema, openapi: breakingDocument(), changelog });
    expect(check.failures).toHaveLength(5);
    expect(check.failures[0]).toMatch(/not in CHANGELOG\.md; add to CHANGELOG\.md/);
  });

  it('passes once CHANGELOG.md lists every change with its period', async () => {
    const changes = openApiBreakingChanges(release.openapi, breakingDocument());
    const listed = announcing(
      changes.map((c) => `- \`${c.id}\`: ${c.message}; deprecated 2026-12-01, sunset 2027-03-01.`),
    );
    const check = await checkApiChanges({
      release,
      schema,
      openapi: breakingDocument(),
      changelog: listed,
      today: TODAY,
    });
    expect(check.failures).toEqual([]);
  });

  it('more that breaks a client: a key that may now be null, a shorter limit, an accepted value gone', () => {
    const broken = copy();
    broken.components.schemas.Product.properties.title.type = ['string', 'null'];
    const search = broken.paths['/api/v1/orders/search'].post.requestBody.content['application/json'].schema;
    search.properties.email.anyOf[0].maxLength = 10;
    search.properties.status.anyOf[0].enum = [0, 1, 2];
    const changes = openApiBreakingChanges(served, broken);
    expect(changes).toEqual(
      expect.arrayContaining([
        { id: 'REST POST /api/v1/orders/search body.email', message: 'maxLength 1000 became 10' },
        { id: 'REST POST /api/v1/orders/search body.status', message: 'no longer accepts 3, 4, 5' },
        { id: 'REST Product.title', message: 'type string became string,null' },
      ]),
    );
    expect(changes).toHaveLength(3);
  });

  it('what is not breaking: a new route, a new answer key, a new optional parameter or body key', () => {
    const grown = copy();
    grown.paths['/api/v1/gift-cards'] = { get: { responses: { 200: { description: 'cards' } } } };
    grown.components.schemas.Order.properties.gift_note = { type: ['string', 'null'] };
    grown.components.schemas.Order.required.push('gift_note');
    grown.paths['/api/v1/orders'].get.parameters.push({ name: 'channel', in: 'query', schema: { type: 'string' } });
    const create = grown.paths['/api/v1/collections'].post.requestBody.content['application/json'].schema;
    create.properties.gift_wrap = { type: 'boolean' };
    expect(openApiBreakingChanges(served, grown)).toEqual([]);
  });
});

describe('a deprecated REST key', () => {
  const deprecation = { since: '2026-12-01', sunset: '2027-03-01', use: 'read `seo_title`' };
  let deprecatedService: TestService;
  let document: Json;

  beforeAll(async () => {
    // Deprecated for this file only (each test file has its own modules): Product's `vendor`.
    productResource.fields.vendor.deprecated = deprecation;
    try {
      deprecatedService = await startTestService();
    } finally {
      delete productResource.fields.vendor.deprecated;
    }
    document = (await deprecatedService.get('/api/v1/openapi.json', null)).body;
  });

  afterAll(async () => {
    await deprecatedService.stop();
  });

  it('is deprecated in the OpenAPI document, with its days', () => {
    const vendor = document.components.schemas.Product.properties.vendor;
    expect(vendor.deprecated).toBe(true);
    expect(vendor.description).toContain('Deprecated since 2026-12-01; may be gone from 2027-03-01: read `seo_title`');
    // Deprecating is not breaking.
    expect(openApiBreakingChanges(served, document)).toEqual([]);
  });

  it('answers holding it carry Deprecation (RFC 9745) and Sunset (RFC 8594)', async () => {
    const expected = { deprecation: '@1796083200', sunset: 'Mon, 01 Mar 2027 00:00:00 GMT' };
    for (const path of ['/api/v1/products/1', '/api/v1/products?size=2', '/api/v1/products?fields=id,vendor']) {
      const answer = await deprecatedService.get(path);
      expect(answer.status).toBe(200);
      expect({ deprecation: answer.headers.get('deprecation'), sunset: answer.headers.get('sunset') }).toEqual(
        expected,
      );
    }
    // An export's lines hold every key: announced before the first line.
    const exported = await deprecatedService.get('/api/v1/products/export');
    expect(exported.headers.get('sunset')).toBe(expected.sunset);
  });

  it('answers without it, and refusals, say nothing', async () => {
    for (const path of ['/api/v1/products/1?fields=id,title', '/api/v1/products/999999', '/api/v1/products?size=0']) {
      const answer = await deprecatedService.get(path);
      expect(answer.headers.get('deprecation')).toBeNull();
      expect(answer.headers.get('sunset')).toBeNull();
    }
  });

  it('must be in CHANGELOG.md with its period', async () => {
    const check = await checkApiChanges({ release, schema, openapi: document, changelog });
    expect(check.failures).toEqual([
      'REST Product.vendor: deprecated, but CHANGELOG.md does not list it with its period',
    ]);
    const listed = changelog.replace(
      '### Deprecated\n\nNone.\n',
      '### Deprecated\n\n- `REST Product.vendor`: deprecated 2026-12-01, sunset 2027-03-01. Read `seo_title`.\n',
    );
    expect((await checkApiChanges({ release, schema, openapi: document, changelog: listed })).failures).toEqual([]);
  });
});

describe('REST and GraphQL deprecations agree', () => {
  it('a REST key read from a @deprecated GraphQL field must be deprecated too: the start fails otherwise', async () => {
    const deprecated = await buildStoreSchema();
    const vendor = (deprecated.getType('Product') as unknown as { getFields(): Record<string, any> }).getFields()
      .vendor;
    vendor.deprecationReason = 'Use the brand; sunset 2027-03-01';
    expect(() => deriveRestApi(deprecated, routes)).toThrow(
      new RegExp(
        'REST resource Product\\.vendor reads vendor, deprecated in GraphQL ' +
          '\\(Use the brand; sunset 2027-03-01\\): declare the key deprecated too',
      ),
    );
  });

  it('a deprecation shorter than 90 days is refused at start', async () => {
    productResource.fields.vendor.deprecated = { since: '2027-01-01', sunset: '2027-02-01', use: 'nothing' };
    try {
      expect(() => deriveRestApi(schema, routes)).toThrow(
        /vendor: deprecated, but its sunset 2027-02-01 is less than 90 days after 2027-01-01/,
      );
    } finally {
      delete productResource.fields.vendor.deprecated;
    }
  });
});
