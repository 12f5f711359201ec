import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `test/corpora/`: the copy of the corpora written by others (BFCL, the JSON Schema Test Suite, the MCP
 * wire schemas, Seal-Tools) that the tests and benchmarks read, found from this file's location. Its
 * README gives each one's source, version and license.
 */
export const CORPORA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'corpora');
