import type { JsonSchema, ToolContract } from '../contract/index.js';
import { aliasedName } from './adapter-context.js';
import { DiagnosticSink, type ToolDiagnostics } from './diagnostics.js';
import { checkLocalRefs } from './local-refs.js';
import { describeWithReturns } from './returns.js';
import { OPENAI_STRICT, toStrictSchema } from './strict-schema.js';
import type { OpenAIChatTool, SchemaOptions } from './types.js';

/**
 * A contract as a Chat Completions function tool. `strict` is always sent: `true` with the schema
 * rewritten for strict mode (see `toStrictSchema`), or `false` with the contract's schema as it is.
 * The return contract, which has no slot here, goes into the description unless `returns: 'omit'`.
 *
 * @example
 * toOpenAITool(readFile.contract, { strict: true });
 * // { type: 'function', function: { name: 'read_file', description: '…', parameters: { …, additionalProperties: false }, strict: true } }
 */
export function toOpenAITool(contract: ToolContract, options: SchemaOptions = {}): OpenAIChatTool {
  return openaiTool(contract, options, new DiagnosticSink('openai').forTool(contract.name));
}

/** The adapter behind {@link toOpenAITool}, reporting what it had to change. */
export function openaiTool(
  contract: ToolContract,
  options: SchemaOptions,
  diagnostics: ToolDiagnostics,
): OpenAIChatTool {
  const name = aliasedName(contract, 'openai', diagnostics);
  const strict = options.strict === true;
  const description = describeWithReturns(contract, options, diagnostics, { hasSlot: false });
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: openaiParameters(contract.parameters, strict, diagnostics),
      strict,
    },
  };
}

/** The parameters as OpenAI takes them, shared by Chat Completions and Responses. */
export function openaiParameters(
  parameters: JsonSchema,
  strict: boolean,
  diagnostics: ToolDiagnostics,
): JsonSchema {
  checkLocalRefs(parameters, '$.parameters', diagnostics);
  if (strict) return toStrictSchema(parameters, OPENAI_STRICT, diagnostics, '$.parameters');
  // "Omitting parameters defines a function with an empty parameter list", but Responses requires the
  // field, so both get the same explicit empty object.
  return Object.keys(parameters).length === 1 && parameters.type === 'object'
    ? { type: 'object', properties: {} }
    : parameters;
}
