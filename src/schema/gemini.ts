import type { JsonSchema, ToolContract } from '../contract/index.js';
import { aliasedName, hasNoParameters } from './adapter-context.js';
import { DiagnosticSink, type ToolDiagnostics } from './diagnostics.js';
import { toGeminiSchema } from './gemini-schema.js';
import { checkLocalRefs } from './local-refs.js';
import { describeWithReturns } from './returns.js';
import { childPath, isRecord } from './schema-node.js';
import type { GeminiFunctionDeclaration, SchemaOptions } from './types.js';

// GenerationConfig.responseJsonSchema's documented subset; no list exists for parametersJsonSchema,
// so it is applied as warnings (provider-rules §1.3.2, rule 45).
const JSON_SCHEMA_SUBSET = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
]);

/**
 * A contract as a Gemini function declaration (one entry of `tools[0].functionDeclarations`). By default
 * the parameters use the OpenAPI-subset `parameters` field (see `toGeminiSchema`), which every Gemini
 * surface reads, the Live API included; `gemini: 'json-schema'` sends `parametersJsonSchema` instead.
 * A tool without parameters leaves the field out, as Gemini asks. The return schema goes into
 * `response` / `responseJsonSchema`.
 *
 * @example
 * const request = { tools: [{ functionDeclarations: [toGeminiFunctionDeclaration(readFile.contract)] }] };
 */
export function toGeminiFunctionDeclaration(
  contract: ToolContract,
  options: SchemaOptions = {},
): GeminiFunctionDeclaration {
  return geminiFunctionDeclaration(contract, options, new DiagnosticSink('gemini').forTool(contract.name));
}

/** The adapter behind {@link toGeminiFunctionDeclaration}, reporting what it had to change. */
export function geminiFunctionDeclaration(
  contract: ToolContract,
  options: SchemaOptions,
  diagnostics: ToolDiagnostics,
): GeminiFunctionDeclaration {
  const name = aliasedName(contract, 'gemini', diagnostics);
  const json = options.gemini === 'json-schema';
  const mode = options.returns ?? 'auto';
  const slot = mode === 'auto' ? contract.returns?.schema : undefined;
  const description = describeWithReturns(contract, options, diagnostics, { hasSlot: true });
  const out: { -readonly [K in keyof GeminiFunctionDeclaration]: GeminiFunctionDeclaration[K] } = {
    name,
    description,
  };
  if (!hasNoParameters(contract)) {
    if (json) {
      checkLocalRefs(contract.parameters, '$.parameters', diagnostics);
      checkSubset(contract.parameters, '$.parameters', diagnostics);
      out.parametersJsonSchema = contract.parameters;
    } else {
      out.parameters = toGeminiSchema(contract.parameters, diagnostics, '$.parameters');
    }
  }
  if (slot) {
    if (json) {
      checkLocalRefs(slot, '$.returns.schema', diagnostics);
      checkSubset(slot, '$.returns.schema', diagnostics);
      out.responseJsonSchema = slot;
    } else {
      out.response = toGeminiSchema(slot, diagnostics, '$.returns.schema');
    }
  }
  return out;
}

function checkSubset(schema: JsonSchema, path: string, diagnostics: ToolDiagnostics): void {
  const seen = new Map<string, string>();
  const visit = (node: unknown, at: string, depth: number): void => {
    if (depth > 64 || !isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (!JSON_SCHEMA_SUBSET.has(key) && !seen.has(key)) seen.set(key, childPath(at, key));
      if (key === 'properties' || key === '$defs' || key === 'definitions') {
        if (isRecord(value))
          for (const [name, child] of Object.entries(value))
            visit(child, childPath(at, key, name), depth + 1);
      } else if (
        key === 'items' ||
        key === 'additionalProperties' ||
        key === 'not' ||
        key === 'if' ||
        key === 'then' ||
        key === 'else'
      ) {
        visit(value, childPath(at, key), depth + 1);
      } else if (
        (key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') &&
        Array.isArray(value)
      ) {
        for (const [index, child] of value.entries()) visit(child, childPath(at, key, index), depth + 1);
      }
    }
  };
  visit(schema, path, 0);
  for (const [key, at] of seen) diagnostics.report(at, 'outside_subset', `"${key}"`);
}
