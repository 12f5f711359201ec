import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { ContentType } from '../content/blocks.js';
import {
  explainInvalidToolName,
  isToolCategory,
  type JsonSchema,
  normalizeSchema,
  resolveEffects,
  type ToolCategory,
  type ToolContract,
  type ToolEffects,
  type ToolExample,
} from '../contract/index.js';
import { TOOL_BRAND, type Tool, type ToolExecuteContext, type ToolMeta } from '../contract/tool.js';
import { checkJsonSchema, jsonSchemaValidator } from '../dispatch/validate-json-schema.js';
import { standardSchemaResultValidator } from '../dispatch/validate-result.js';
import { standardSchemaValidator } from '../dispatch/validate-standard-schema.js';
import type { ArgumentValidator } from '../dispatch/validation.js';
import { ToolDefinitionError } from '../errors/index.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { assertDefaultsMatch } from './broken-defaults.js';
import { declaredContent } from './declared-content.js';
import type { FromJsonSchema } from './from-json-schema.js';

/** A schema library's schema that also describes itself as JSON Schema (zod 4, arktype, valibot via toStandardJsonSchema). */
export type StandardSchemaWithJson<Input = unknown, Output = Input> = StandardSchemaV1<Input, Output> &
  StandardJSONSchemaV1<Input, Output>;

/** What `input`/`output` accept: a Standard Schema with JSON Schema, or a plain JSON Schema object. */
export type SchemaInput = StandardSchemaWithJson | JsonSchema;

/** The arguments `execute` receives for an `input` schema: the schema's output (defaults applied). */
export type InferArguments<I> = I extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<I>
  : unknown extends FromJsonSchema<I>
    ? { [key: string]: unknown }
    : FromJsonSchema<I>;

/** What `execute` must return for an `output` schema. */
export type InferResult<O> = [O] extends [undefined]
  ? unknown
  : O extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<O>
    : FromJsonSchema<O>;

/** Options of {@link defineTool}. */
export interface DefineToolOptions<I extends SchemaInput | undefined, O extends SchemaInput | undefined> {
  /** `^[A-Za-z0-9_-]{1,64}$`; verb_noun reads best (`read_file`). */
  readonly name: string;
  readonly title?: string;
  /** What it does, when to use it and when not, parameter semantics, side effects, common misuse. */
  readonly description: string;
  readonly category: ToolCategory;
  /** The parameters. Omit for a tool that takes none. */
  readonly input?: I;
  /** The result's schema: the return contract (MCP `outputSchema`). */
  readonly output?: O;
  /** What the result means, for the return contract. */
  readonly returns?: string;
  /**
   * The kinds of content blocks the tool answers with (`toolResult`), e.g. `['text', 'image']`: the
   * provider adapters and lint then say where a provider's tool results cannot hold them.
   */
  readonly content?: readonly ContentType[];
  /** Overrides of the category's default effects. */
  readonly effects?: Partial<ToolEffects>;
  /** Wall-clock limit for one call, in milliseconds. */
  readonly timeoutMs?: number;
  readonly examples?: readonly ToolExample[];
  readonly meta?: ToolMeta;
  readonly execute: (
    args: InferArguments<I>,
    context: ToolExecuteContext,
  ) => InferResult<O> | Promise<InferResult<O>>;
}

const NO_PARAMETERS: JsonSchema = Object.freeze({
  type: 'object',
  properties: {},
  additionalProperties: false,
});

/**
 * Defines a tool once: its contract (what the model sees) and how it runs. `input` is a zod 4 (or any
 * Standard Schema with JSON Schema) schema or a plain JSON Schema; `execute`'s argument type is inferred
 * from it. The schema the model sees is the input side: a field with a default is not required.
 *
 * Throws {@link ToolDefinitionError} for an invalid name, a missing description, an unknown category or
 * a schema that cannot work, with a message that says what to fix; in a JSON Schema, a `default`,
 * `const` or example that fails its own subschema is `invalid_default` (dispatch would fill in a default
 * it then refuses), with the path, the value and what the subschema expects in `details`.
 *
 * @example
 * import * as z from 'zod';
 * const readFile = defineTool({
 *   name: 'read_file',
 *   category: 'read',
 *   description: 'Read the full text of a UTF-8 file. `path` is relative to the workspace root. ...',
 *   input: z.object({ path: z.string().describe('File path relative to the workspace root') }),
 *   execute: async ({ path }) => fs.readFile(resolve(root, path), 'utf8'),
 * });
 */
export function defineTool<
  const I extends SchemaInput | undefined = undefined,
  const O extends SchemaInput | undefined = undefined,
>(options: DefineToolOptions<I, O>): Tool<InferArguments<I>, InferResult<O>> {
  if (options === null || typeof options !== 'object') {
    throw new ToolDefinitionError(
      'invalid_option',
      `defineTool expects an options object, received ${typeof options}.`,
    );
  }
  const name = options.name;
  const nameProblem = explainInvalidToolName(name);
  if (nameProblem) {
    throw new ToolDefinitionError('invalid_name', `Invalid tool name: ${nameProblem}.`, String(name));
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    throw new ToolDefinitionError(
      'missing_description',
      `Tool "${name}" has no description. The description is what the model reads to decide when and how to ` +
        'call the tool: say what it does, when to use it and when not, what each parameter means, and its side effects.',
      name,
    );
  }
  if (!isToolCategory(options.category)) {
    throw new ToolDefinitionError(
      'invalid_category',
      `Tool "${name}" has category ${JSON.stringify(options.category)}; use one of read, search, write, execute, delegate.`,
      name,
    );
  }
  if (typeof options.execute !== 'function') {
    throw new ToolDefinitionError('invalid_option', `Tool "${name}" needs an execute function.`, name);
  }
  if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `Tool "${name}" has timeoutMs ${String(options.timeoutMs)}; give a positive number of milliseconds or leave it out.`,
      name,
    );
  }

  const input = resolveSchema(name, 'input', options.input);
  if (input.schema.type !== 'object') {
    throw new ToolDefinitionError(
      'invalid_schema',
      `Tool "${name}": the input schema must describe an object (type "object" at the root), ` +
        `received type ${JSON.stringify(input.schema.type)}. Wrap single values in an object with a named property.`,
      name,
    );
  }
  const output = options.output === undefined ? undefined : resolveSchema(name, 'output', options.output);

  const content = options.content === undefined ? undefined : declaredContent(name, options.content);
  const returns =
    output || options.returns || content
      ? {
          ...(options.returns ? { description: options.returns } : {}),
          ...(output ? { schema: output.schema } : {}),
          ...(content ? { content } : {}),
        }
      : undefined;

  const contract: ToolContract = deepFreeze({
    name,
    ...(options.title ? { title: options.title } : {}),
    description: options.description.trim(),
    parameters: input.schema,
    ...(returns ? { returns } : {}),
    category: options.category,
    effects: resolveEffects(options.category, options.effects),
    ...(options.examples?.length ? { examples: structuredClone(options.examples) } : {}),
  });

  return Object.freeze({
    [TOOL_BRAND]: true as const,
    contract,
    timeoutMs: options.timeoutMs,
    meta: Object.freeze({ ...options.meta }),
    validate: input.validator as ArgumentValidator<InferArguments<I>>,
    ...(output && isStandardSchema(options.output)
      ? { validateResult: standardSchemaResultValidator(options.output, output.schema) }
      : {}),
    execute: options.execute as Tool<InferArguments<I>, InferResult<O>>['execute'],
  });
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value;
}

interface ResolvedSchema {
  readonly schema: JsonSchema;
  readonly validator: ArgumentValidator<unknown>;
}

function resolveSchema(
  tool: string,
  side: 'input' | 'output',
  value: SchemaInput | undefined,
): ResolvedSchema {
  if (value === undefined) {
    return { schema: NO_PARAMETERS, validator: jsonSchemaValidator(NO_PARAMETERS) };
  }
  // arktype's types are callable, so a schema may be a function carrying `~standard`.
  const isSchemaObject = value !== null && (typeof value === 'object' || typeof value === 'function');
  if (!isSchemaObject || (typeof value === 'function' && !('~standard' in value))) {
    throw new ToolDefinitionError(
      'invalid_schema',
      `Tool "${tool}": ${side} must be a zod (or other Standard Schema) schema or a JSON Schema object, received ${value === null ? 'null' : typeof value}.`,
      tool,
    );
  }
  const standard = (value as Partial<StandardSchemaWithJson>)['~standard'];
  if (standard) {
    const converter = standard.jsonSchema;
    if (!converter || typeof converter[side === 'input' ? 'input' : 'output'] !== 'function') {
      throw new ToolDefinitionError(
        'unsupported_schema',
        `Tool "${tool}": the ${side} schema (from "${standard.vendor}") cannot describe itself as JSON Schema ` +
          '(it has no ~standard.jsonSchema). Use zod 4.2 or later, arktype 2, or wrap a valibot schema with ' +
          'toStandardJsonSchema() from @valibot/to-json-schema; or pass a plain JSON Schema.',
        tool,
      );
    }
    let schema: JsonSchema;
    try {
      schema = normalizeSchema(converter[side]({ target: 'draft-2020-12' }) as JsonSchema);
    } catch (error) {
      throw new ToolDefinitionError(
        'unsupported_schema',
        `Tool "${tool}": the ${side} schema cannot be expressed as JSON Schema (${error instanceof Error ? error.message : String(error)}). ` +
          'Remove transforms or custom types from the part the model fills, or give a plain JSON Schema.',
        tool,
        { cause: error },
      );
    }
    return { schema, validator: standardSchemaValidator(value as StandardSchemaV1, schema) };
  }
  const schema = normalizeSchema(value as JsonSchema);
  const problems = checkJsonSchema(schema);
  if (problems.length > 0) {
    throw new ToolDefinitionError(
      'invalid_schema',
      `Tool "${tool}": the ${side} JSON Schema is not valid draft 2020-12: ${problems.join('; ')}.`,
      tool,
    );
  }
  assertDefaultsMatch(tool, schema, side === 'input' ? '$.parameters' : '$.returns.schema');
  return { schema, validator: jsonSchemaValidator(schema) };
}
