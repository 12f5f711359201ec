import type { ToolContract } from '../contract/index.js';
import { aliasedName } from './adapter-context.js';
import { DiagnosticSink, type ToolDiagnostics } from './diagnostics.js';
import { checkLocalRefs } from './local-refs.js';
import { describeWithReturns } from './returns.js';
import { ANTHROPIC_STRICT, toStrictSchema } from './strict-schema.js';
import type { AnthropicTool, SchemaOptions } from './types.js';

/**
 * A contract as an Anthropic Messages API tool: `input_schema` in draft 2020-12 as the contract has it
 * (or, with `strict: true`, closed objects and constraints strict tool use cannot carry stated in the
 * description), the contract's examples as `input_examples`, and the return contract in the description
 * (Anthropic tools have no slot for it).
 *
 * @example
 * toAnthropicTool(readFile.contract);
 * // { name: 'read_file', description: '…\n\nReturns: …', input_schema: { type: 'object', … } }
 */
export function toAnthropicTool(contract: ToolContract, options: SchemaOptions = {}): AnthropicTool {
  return anthropicTool(contract, options, new DiagnosticSink('anthropic').forTool(contract.name));
}

/** The adapter behind {@link toAnthropicTool}, reporting what it had to change. */
export function anthropicTool(
  contract: ToolContract,
  options: SchemaOptions,
  diagnostics: ToolDiagnostics,
): AnthropicTool {
  const name = aliasedName(contract, 'anthropic', diagnostics);
  const strict = options.strict === true;
  const description = describeWithReturns(contract, options, diagnostics, { hasSlot: false });
  checkLocalRefs(contract.parameters, '$.parameters', diagnostics);
  const schema = strict
    ? toStrictSchema(contract.parameters, ANTHROPIC_STRICT, diagnostics, '$.parameters')
    : contract.parameters;
  const examples =
    options.examples === false ? [] : (contract.examples ?? []).map((example) => example.arguments);
  return {
    name,
    description,
    input_schema: { ...schema, type: 'object' },
    ...(strict ? { strict: true } : {}),
    ...(examples.length > 0 ? { input_examples: examples } : {}),
    ...(options.deferLoading?.includes(contract.name) ? { defer_loading: true } : {}),
  };
}
