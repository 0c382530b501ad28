// Every REST answer of the test suite is checked against the OpenAPI document the service serves:
// the documented status for that operation, and a body matching its (strict) schema.

import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildStoreSchema } from '../../src/graphql/build-schema.js';
import { narrowedByFields, openApiDocument } from '../../src/rest/openapi.js';
import { deriveRestApi } from '../../src/rest/rest-api.js';
import { routes } from '../../src/rest/routes.js';

type Document = { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
interface Template {
  template: string;
  regex: RegExp;
  params: number;
}

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();
let doc: Document | undefined;
let templates: Template[] = [];

/**
 * Builds the document as the service does (from the schema), once per test file; the harness calls
 * it when it starts a service, before any answer is checked.
 */
export function loadOpenApiDocument(): Promise<void> {
  // One build however many services a file starts at once (two in parallel would both add it).
  loading ??= buildDocument();
  return loading;
}
let loading: Promise<void> | undefined;

async function buildDocument(): Promise<void> {
  const built = openApiDocument(deriveRestApi(await buildStoreSchema(), routes)) as Document;
  ajv.addSchema(built, 'openapi');
  // An answer to a request with `fields` holds only the named keys (the document says so).
  ajv.addSchema(narrowedByFields(built, routes), 'openapi-fields');
  templates = Object.keys(built.paths)
    .map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
      params: (template.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params);
  doc = built;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validatorFor(ref: string, document = 'openapi'): ValidateFunction {
  let validate = compiled.get(`${document}#/${ref}`);
  if (!validate) {
    validate = ajv.compile({ $ref: `${document}#/${ref}` });
    compiled.set(`${document}#/${ref}`, validate);
  }
  return validate;
}

export function checkAgainstOpenApi(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  body: unknown,
): void {
  if (!doc) throw new Error('loadOpenApiDocument() has not run');
  const paths = doc.paths;
  const path = new URL(url, 'http://x').pathname;
  const operational = path === '/readyz' || path === '/healthz';
  if ((!path.startsWith('/api/v1/') && !operational) || path === '/api/v1/openapi.json') return;
  const where = `${method} ${path} → ${status}`;
  if (status === 304 || method === 'HEAD') return;
  // The most specific path is the one addressed (OpenAPI: `/orders/search` before `/orders/{id}`),
  // whether or not it has this method.
  const addressed = templates.find((t) => t.regex.test(path));
  const match = addressed && paths[addressed.template][method.toLowerCase()] ? addressed : undefined;
  if (!match) {
    // No such operation: only a problem (404/405) may answer.
    if (![404, 405].includes(status)) throw new Error(`${where}: undocumented operation answered ${status}`);
    check(pointer('components', 'schemas', 'Problem'), body, where);
    return;
  }
  const responses = paths[match.template][method.toLowerCase()].responses;
  const response = responses[String(status)];
  if (!response)
    throw new Error(
      `${where}: status ${status} is not documented for ${method} ${match.template} ` +
        `(documented: ${Object.keys(responses).join(', ')})`,
    );
  const [type] = Object.keys(response.content ?? {});
  if (type && !contentType?.startsWith(type))
    throw new Error(`${where}: content-type ${contentType}, documented ${type}`);
  const document = new URL(url, 'http://x').searchParams.has('fields') ? 'openapi-fields' : 'openapi';
  if (type === 'application/x-ndjson') {
    // An export: every line against the line schema (`body` is the text here).
    const lines = String(body).split('\n');
    if (lines.pop() !== '') throw new Error(`${where}: NDJSON not ending with a newline`);
    const at = ['paths', match.template, method.toLowerCase(), 'responses', String(status), 'content', type];
    const line = pointer(...at, 'x-ndjson-line');
    for (const text of lines) check(line, JSON.parse(text), where, document);
    return;
  }
  if (type)
    check(
      pointer('paths', match.template, method.toLowerCase(), 'responses', String(status), 'content', type, 'schema'),
      body,
      where,
      document,
    );
}

function check(ref: string, body: unknown, where: string, document = 'openapi') {
  const validate = validatorFor(ref, document);
  if (!validate(body)) {
    throw new Error(
      `${where}: body does not match the OpenAPI document: ${ajv.errorsText(validate.errors?.slice(0, 5))}` +
        `\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
}
