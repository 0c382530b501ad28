import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import { UnauthenticatedError } from '../domain/errors.js';
import type { GraphQLContext } from '../schema/context.js';
import { graphqlOperations } from '../observability/metrics.js';
import { HTTP_STATUS_BY_CODE } from './error-codes.js';
import { formatError } from './format-error.js';
import type { createGateway } from './gateway.js';

/** A refused operation (no data at all) answers with the status of its refusal: 401, 403, 429. */
const refusalStatusPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        graphqlOperations.inc({ type: operation?.operation ?? 'unknown', via: 'graphql' });
      },
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const { data, errors } = response.body.singleResult;
        if (!errors?.length || (data && Object.values(data).some((v) => v != null))) return;
        const code = String(errors[0].extensions?.code ?? '');
        if (['UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'].includes(code)) response.http.status = HTTP_STATUS_BY_CODE[code];
      },
    };
  },
};

export async function startApollo(gateway: ReturnType<typeof createGateway>) {
  const server = new ApolloServer<GraphQLContext>({
    schema: gateway.schema,
    formatError,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    plugins: [ApolloServerPluginLandingPageDisabled(), refusalStatusPlugin],
    // Every operation needs an Authorization header, which a cross-site form or <img> cannot send,
    // so Apollo's CSRF guard would only refuse legitimate GET queries (decisions §4 allows GET).
    csrfPrevention: false,
  });
  await server.start();
  const context = async (authorization: string | undefined) => {
    try {
      return await gateway.contextFor(authorization);
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        throw new GraphQLError('The database is unavailable; try again shortly', { extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } } });
      }
      if (!(error instanceof UnauthenticatedError)) throw error;
      throw new GraphQLError(error.message, {
        extensions: { code: error.code, http: { status: 401, headers: new Map([['WWW-Authenticate', 'Bearer realm="store-api"']]) } },
      });
    }
  };
  return { server, context };
}
