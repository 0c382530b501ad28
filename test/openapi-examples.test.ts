// The OpenAPI examples are answers of the demo store: calling every operation again on a fresh copy
// of it gives what assets/openapi-examples.json holds (`npm run openapi:examples` refreshes it), and the
// served document shows them on every operation.
import { collectExamples, EXAMPLE_BASE_URL, singleReadOf } from '../src/rest/examples/collect-examples.js';
import { EXAMPLES } from '../src/rest/examples/stored-examples.js';
import { routes } from '../src/rest/routes.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  // As the emitter's, this app runs no bulk work: the example bulk operation stays created and can be canceled.
  service = await startTestService({ publicUrl: EXAMPLE_BASE_URL });
});
afterAll(() => service.stop());

/** The demo store's times all lie in 2025; a later one was written by the example request itself (now). */
const WRITTEN_AFTER = Date.UTC(2026, 0, 1) / 1000;
// The timeline names the token that made each change: the one making the example requests, which
// the emitter and this test each create for themselves.
const withoutRunTimes = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, v) => {
    if (key === 'actor' && v && typeof v === 'object') return 'the token making the requests';
    return (key.endsWith('_at') || key === 'order_date') && typeof v === 'number' && v > WRITTEN_AFTER
      ? 'written at run time'
      : v;
  });

it('assets/openapi-examples.json holds what the demo store answers now', async () => {
  // An export's answer (NDJSON) is compared as its text.
  const ndjson = (res: { headers: Headers }) => res.headers.get('content-type')?.startsWith('application/x-ndjson');
  const fresh = await collectExamples(async (method, path, body) => {
    const ndjsonFile = typeof body === 'string' ? { 'content-type': 'application/x-ndjson' } : undefined;
    const res = await service.send(method, path, body, undefined, ndjsonFile);
    return ndjson(res) ? { ...res, body: res.text } : res;
  });
  expect(withoutRunTimes(EXAMPLES)).toEqual(withoutRunTimes(fresh));
}, 60_000);

it(
  'every operation of the served document has a response example, ' + 'and a request example when it takes a body',
  async () => {
    const doc = (await service.get('/api/v1/openapi.json', null)).body;
    for (const route of routes) {
      const op = doc.paths[`/api/v1${route.path}`][route.method.toLowerCase()];
      const key = `${route.method} ${route.path}`;
      const example = EXAMPLES[key];
      if (!example) {
        // Only the single read of a list the demo store leaves empty goes without one: there is no record to show.
        const list = routes.find((r) => r.kind === 'list' && singleReadOf(r) === route);
        const listPage =
          list && (EXAMPLES[`${list.method} ${list.path}`]?.response as { items?: unknown[] } | undefined);
        expect({ route: key, listItems: listPage?.items }).toEqual({ route: key, listItems: [] });
        expect(op.responses['200'].content['application/json'].example).toBeUndefined();
        continue;
      }
      const [content] = Object.values(op.responses[String(example.status)].content) as { example: unknown }[];
      expect(content.example).toEqual(example.response);
      if (op.requestBody && example.request.body !== undefined)
        expect(op.requestBody.content['application/json'].example).toEqual(example.request.body);
      for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
        expect(op.parameters.find((p: { name: string }) => p.name === name.slice(1, -1)).example).toEqual(
          expect.any(Number),
        );
      }
    }
  },
);
