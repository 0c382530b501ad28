// docs/graphql.md#choosing-the-operation: `operationName` picks one operation of the document;
// one the document does not hold is the client's mistake (400), on POST and GET alike, and each
// operation of a document runs as itself (compiled once per operation, not once per document).
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const post = (query: string, operationName?: string) => service.send('POST', '/graphql', { query, operationName });
const get = (query: string, operationName?: string) =>
  service.get(`/graphql?${new URLSearchParams({ query, ...(operationName ? { operationName } : {}) })}`);

function refused(res: { status: number; body: any }, message: string) {
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toEqual([{ message, extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }]);
}

it('answers an operationName the document does not hold with 400, POST and GET', async () => {
  refused(await post('{ __typename }', 'Nope'), 'Unknown operation named "Nope".');
  refused(await get('{ __typename }', 'Nope'), 'Unknown operation named "Nope".');
  refused(await post('query A { __typename } query B { __typename }', 'C'), 'Unknown operation named "C".');
  refused(await get('query A { __typename } query B { __typename }', 'C'), 'Unknown operation named "C".');
  refused(await post('mutation A { __typename }', 'Nope'), 'Unknown operation named "Nope".');
});

it('answers a document of several operations without an operationName with 400', async () => {
  const message = 'Must provide operation name if query contains multiple operations.';
  refused(await post('query A { __typename } query B { __typename }'), message);
  refused(await get('query A { __typename } query B { __typename }'), message);
});

it('runs the operation named, whichever of the document ran before', async () => {
  const document = 'query A { a: __typename } query B { b: __typename }';
  for (const [name, data] of [
    ['A', { a: 'Query' }],
    ['B', { b: 'Query' }],
    ['A', { a: 'Query' }],
  ] as const) {
    const res = await post(document, name);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(data);
  }
  const res = await get(document, 'B');
  expect(res.body.data).toEqual({ b: 'Query' });
});

it('runs a one-operation document by its own name or without one', async () => {
  for (const name of ['Only', undefined]) {
    const res = await post('query Only { warehouses { totalCount } }', name);
    expect(res.status).toBe(200);
    expect(res.body.data.warehouses.totalCount).toEqual(expect.any(Number));
  }
});
