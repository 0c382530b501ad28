import { readFileSync } from 'node:fs';
import { projectFile } from '../../package-assets.js';
import type { Examples } from './collect-examples.js';

/**
 * The OpenAPI examples as `npm run openapi:examples` last wrote them: a committed JSON asset
 * outside `src` (generated data, not code), read once when the document is first built.
 */
export const EXAMPLES_FILE = 'assets/openapi-examples.json';

export const EXAMPLES: Examples = JSON.parse(readFileSync(projectFile(EXAMPLES_FILE), 'utf8'));
