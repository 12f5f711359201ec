import {
  isToolCategory,
  type JsonSchema,
  normalizeSchema,
  resolveEffects,
  type ToolContract,
  WIDE_TOOL_NAME_PATTERN,
} from '../contract/index.js';
import { TOOL_BRAND, type Tool, type ToolExecuteContext, type ToolMeta } from '../contract/tool.js';
import { checkJsonSchema, jsonSchemaValidator } from '../dispatch/validate-json-schema.js';
import type { ArgumentValidator } from '../dispatch/validation.js';
import { ToolDefinitionError } from '../errors/index.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { assertDefaultsMatch } from './broken-defaults.js';
import { declaredContent } from './declared-content.js';

/** Options of {@link createTool}. */
export interface CreateToolOptions<Args> {
  readonly execute: (args: Args, context: ToolExecuteContext) => unknown;
  readonly timeoutMs?: number;
  readonly meta?: ToolMeta;
  /** A validator of your own; by default the contract's `parameters` are validated with ajv (draft 2020-12). */
  readonly validate?: ArgumentValidator<Args>;
}

/**
 * Builds a tool from a contract that already exists as data: an imported MCP tool, a generated
 * type-first contract, a corpus entry. Unlike `defineTool`, the name may use the wider MCP profile
 * (`^[A-Za-z0-9._-]{1,128}$`); provider adapters give such names a provider-safe alias. The description,
 * category and parameter schema are checked as strictly as `defineTool` checks them, so a `default`,
 * `const` or example that fails its own subschema throws `invalid_default`; for a schema from outside,
 * take such values out first with `dropBrokenDefaults`.
 *
 * @example
 * const tool = createTool(
 *   { name: 'math.factorial', description: 'Compute n!.', category: 'read',
 *     parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
 *     effects: { readOnly: true, destructive: false, idempotent: true, openWorld: false } },
 *   { execute: ({ n }) => factorial(n) },
 * );
 */
export function createTool<Args = { [key: string]: unknown }>(
  contract: Omit<ToolContract, 'effects'> & { readonly effects?: Partial<ToolContract['effects']> },
  options: CreateToolOptions<Args>,
): Tool<Args, unknown> {
  const name = contract?.name;
  if (typeof name !== 'string' || !WIDE_TOOL_NAME_PATTERN.test(name)) {
    throw new ToolDefinitionError(
      'invalid_name',
      `Invalid tool name ${JSON.stringify(name)}: use 1 to 128 of the characters A-Z a-z 0-9 _ - . (MCP's profile).`,
      typeof name === 'string' ? name : undefined,
    );
  }
  if (typeof contract.description !== 'string' || contract.description.trim() === '') {
    throw new ToolDefinitionError(
      'missing_description',
      `Tool "${name}" has no description; give it one.`,
      name,
    );
  }
  if (!isToolCategory(contract.category)) {
    throw new ToolDefinitionError(
      'invalid_category',
      `Tool "${name}" has category ${JSON.stringify(contract.category)}; use one of read, search, write, execute, delegate.`,
      name,
    );
  }
  if (typeof options?.execute !== 'function') {
    throw new ToolDefinitionError('invalid_option', `Tool "${name}" needs an execute function.`, name);
  }
  const parameters = normalizeSchema(contract.parameters ?? { type: 'object' });
  if (parameters.type !== 'object') {
    throw new ToolDefinitionError(
      'invalid_schema',
      `Tool "${name}": parameters must have type "object" at the root, received ${JSON.stringify(parameters.type)}.`,
      name,
    );
  }
  const problems = checkJsonSchema(parameters);
  if (problems.length > 0) {
    throw new ToolDefinitionError(
      'invalid_schema',
      `Tool "${name}": the parameters are not valid JSON Schema (draft 2020-12): ${problems.join('; ')}.`,
      name,
    );
  }
  assertDefaultsMatch(name, parameters, '$.parameters');
  const returnsSchema = contract.returns?.schema
    ? normalizeSchema(contract.returns.schema as JsonSchema)
    : undefined;
  if (returnsSchema) assertDefaultsMatch(name, returnsSchema, '$.returns.schema');
  const full: ToolContract = structuredClone({
    name,
    ...(contract.title ? { title: contract.title } : {}),
    description: contract.description.trim(),
    parameters,
    ...(contract.returns
      ? {
          returns: {
            ...(contract.returns.description ? { description: contract.returns.description } : {}),
            ...(returnsSchema ? { schema: returnsSchema } : {}),
            ...(contract.returns.content !== undefined
              ? { content: declaredContent(name, contract.returns.content) }
              : {}),
          },
        }
      : {}),
    category: contract.category,
    effects: resolveEffects(contract.category, contract.effects),
    ...(contract.examples?.length ? { examples: contract.examples } : {}),
  });
  return Object.freeze({
    [TOOL_BRAND]: true as const,
    contract: deepFreeze(full),
    timeoutMs: options.timeoutMs,
    meta: Object.freeze({ ...options.meta }),
    validate: options.validate ?? jsonSchemaValidator<Args>(parameters),
    execute: options.execute as Tool<Args, unknown>['execute'],
  });
}
