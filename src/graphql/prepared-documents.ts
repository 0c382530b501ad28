import { type DocumentNode, type GraphQLError, type GraphQLSchema, getOperationAST } from 'graphql';
import { setBounded } from '../bounded-map.js';
import { parseOperation } from './document-guard.js';

const CACHE_LIMIT = 1000;

export interface Prepared {
  operation: string;
  document: DocumentNode;
}

/**
 * A document parsed (with Apollo's token limit) and validated (with the rules Apollo validates
 * with here) once, then run as often as REST or a repeated `/graphql` query asks for it
 * (compiled, see compiled-execution.ts).
 */
export function createPreparedDocuments(schema: GraphQLSchema) {
  const documents = new Map<string, Prepared>();

  return function prepared(source: string): Prepared | readonly GraphQLError[] {
    const cached = documents.get(source);
    if (cached) return cached;
    const document = parseOperation(schema, source);
    if (!('kind' in document)) return document;
    const entry = { operation: getOperationAST(document)?.operation ?? 'unknown', document };
    setBounded(documents, source, entry, CACHE_LIMIT);
    return entry;
  };
}

export type PreparedDocuments = ReturnType<typeof createPreparedDocuments>;
