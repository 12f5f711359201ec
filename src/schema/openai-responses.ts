import type { ToolContract } from '../contract/index.js';
import { aliasedName } from './adapter-context.js';
import { DiagnosticSink, type ToolDiagnostics } from './diagnostics.js';
import { checkLocalRefs } from './local-refs.js';
import { openaiParameters } from './openai.js';
import { describeWithReturns } from './returns.js';
import type { OpenAIResponsesTool, SchemaOptions } from './types.js';

/**
 * A contract as a Responses API function tool (flat, no `function` wrapper). `strict` is always sent,
 * because Responses would otherwise try strict mode on its own and silently fall back. The return
 * schema goes into `output_schema`, its description into the description.
 *
 * @example
 * toOpenAIResponsesTool(readFile.contract);
 * // { type: 'function', name: 'read_file', description: '…', parameters: { … }, strict: false, output_schema: { … } }
 */
export function toOpenAIResponsesTool(
  contract: ToolContract,
  options: SchemaOptions = {},
): OpenAIResponsesTool {
  return openaiResponsesTool(
    contract,
    options,
    new DiagnosticSink('openai-responses').forTool(contract.name),
  );
}

/** The adapter behind {@link toOpenAIResponsesTool}, reporting what it had to change. */
export function openaiResponsesTool(
  contract: ToolContract,
  options: SchemaOptions,
  diagnostics: ToolDiagnostics,
): OpenAIResponsesTool {
  const name = aliasedName(contract, 'openai-responses', diagnostics);
  const strict = options.strict === true;
  const mode = options.returns ?? 'auto';
  const slot = mode === 'auto' ? contract.returns?.schema : undefined;
  const description = describeWithReturns(contract, options, diagnostics, {
    hasSlot: true,
    severity: 'info',
  });
  if (slot) checkLocalRefs(slot, '$.returns.schema', diagnostics);
  return {
    type: 'function',
    name,
    description,
    parameters: openaiParameters(contract.parameters, strict, diagnostics),
    strict,
    ...(slot ? { output_schema: slot } : {}),
  };
}
