import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CORPORA_DIR } from '../support/corpora.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;
let ajv: Ajv2020 | undefined;

/** A validator for one definition of the MCP 2025-11-25 wire schema (the corpus file declares draft 2020-12). */
export function mcpDefinition(name: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(
      JSON.parse(readFileSync(join(CORPORA_DIR, 'mcp', 'schema-2025-11-25.json'), 'utf8')),
      'mcp',
    );
  }
  const validate = ajv.getSchema(`mcp#/$defs/${name}`);
  if (!validate) throw new Error(`The MCP schema has no definition ${name}`);
  return validate;
}
