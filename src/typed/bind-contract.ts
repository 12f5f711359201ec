import { explainInvalidToolName, isToolCategory, type ToolCategory } from '../contract/index.js';
import type { AnyTool, ToolExecuteContext } from '../contract/tool.js';
import { createTool } from '../define/create-tool.js';
import { jsonSchemaValidator } from '../dispatch/validate-json-schema.js';
import type { ArgumentValidator } from '../dispatch/validation.js';
import { ToolDefinitionError } from '../errors/index.js';
import { GENERATED_FORMAT, type GeneratedContracts, type GeneratedTool } from './generated-contracts.js';
import { parameterNames } from './parameter-names.js';
import { reviveDates } from './revive-dates.js';
import type { TypedToolOptions } from './typed-tool-options.js';

/** A function (or method) declared as a type-first tool, before its generated contract is bound. */
export interface TypedDeclaration {
  readonly name: string;
  // biome-ignore lint/suspicious/noExplicitAny: any function may be a tool.
  readonly fn: (...args: any[]) => unknown;
  /** `this` for a method; undefined for a plain function. */
  readonly receiver: unknown;
  readonly options: TypedToolOptions;
  /** How the declaration reads in messages: `function read_file` or `method Workspace.read_file`. */
  readonly label: string;
}

const REGENERATE = 'Run `toolpact gen` again on the files that declare your type-first tools';

/**
 * Builds the tool of a type-first declaration from its generated contract. Throws
 * {@link ToolDefinitionError} `missing_contract` when the generated module has no entry for the tool,
 * and `stale_contract` when the entry no longer fits the function (its parameters changed) or was
 * written by another version of the generator; both messages say to run `toolpact gen`.
 *
 * @example
 * const tool = bindContract({ name: 'read_file', fn: read_file, receiver: undefined,
 *   options: { category: 'read', contracts }, label: 'function read_file' });
 */
export function bindContract(declaration: TypedDeclaration): AnyTool {
  const { name, options } = declaration;
  const entry = findEntry(declaration);
  checkShape(declaration, entry);
  const category: ToolCategory | undefined = options.category ?? entry.contract.category;
  if (!isToolCategory(category)) {
    throw new ToolDefinitionError(
      'invalid_category',
      `Tool "${name}" has no category: add \`@category read\` (or search, write, execute, delegate) to its doc comment, or pass { category } to tool().`,
      name,
    );
  }
  const validateArguments = jsonSchemaValidator<Record<string, unknown>>(entry.contract.parameters);
  const dates = entry.dates ?? [];
  const validate: ArgumentValidator<Record<string, unknown>> =
    dates.length === 0
      ? validateArguments
      : (value) => {
          const result = validateArguments(value);
          if (!(result instanceof Promise) && result.ok) reviveDates(result.value, dates);
          return result;
        };
  const { fn, receiver } = declaration;
  const call = entry.call;
  const execute =
    call.style === 'object'
      ? (args: Record<string, unknown>, context: ToolExecuteContext) =>
          call.context ? fn.call(receiver, args, context) : fn.call(receiver, args)
      : (args: Record<string, unknown>, context: ToolExecuteContext) => {
          // Own properties only: an absent `toString` parameter must not pick up Object.prototype's.
          const values = call.parameters.map((parameter) =>
            Object.hasOwn(args, parameter) ? args[parameter] : undefined,
          );
          if (call.context) values.push(context);
          return fn.apply(receiver, values);
        };
  return createTool<Record<string, unknown>>(
    {
      ...entry.contract,
      name,
      ...(options.title ? { title: options.title } : {}),
      category,
      ...(options.effects ? { effects: options.effects } : {}),
    },
    {
      execute,
      validate,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      meta: { source: 'local', ...options.meta, typed: entry.source },
    },
  );
}

/**
 * Checks what can be checked before the contract is needed: the name and the options. Throws
 * {@link ToolDefinitionError} for an invalid name, category or timeout.
 *
 * @example
 * checkDeclaration({ name: 'read_file', fn: read_file, receiver: undefined, options, label: 'function read_file' });
 */
export function checkDeclaration(declaration: TypedDeclaration): void {
  const { name, options, label } = declaration;
  const problem = explainInvalidToolName(name);
  if (problem) {
    throw new ToolDefinitionError(
      'invalid_name',
      `Invalid tool name for ${label}: ${problem}. Pass { name } to tool() to choose another.`,
      name || undefined,
    );
  }
  if (options === null || typeof options !== 'object') {
    throw new ToolDefinitionError(
      'invalid_option',
      `tool() for ${label} needs an options object with the generated contracts: tool(fn, { contracts }).`,
      name,
    );
  }
  if (options.category !== undefined && !isToolCategory(options.category)) {
    throw new ToolDefinitionError(
      'invalid_category',
      `Tool "${name}" has category ${JSON.stringify(options.category)}; use one of read, search, write, execute, delegate.`,
      name,
    );
  }
  if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `Tool "${name}" has timeoutMs ${String(options.timeoutMs)}; give a positive number of milliseconds or leave it out.`,
      name,
    );
  }
}

function findEntry(declaration: TypedDeclaration): GeneratedTool {
  const { name, options } = declaration;
  const contracts = options.contracts as GeneratedContracts | undefined;
  if (contracts === null || typeof contracts !== 'object') {
    throw new ToolDefinitionError(
      'missing_contract',
      `Tool "${name}" was given no generated contracts (received ${contracts === null ? 'null' : typeof contracts}). ` +
        `Run \`toolpact gen <files> -o <module>\` and pass its default export: tool(fn, { contracts }).`,
      name,
    );
  }
  if (
    contracts.format !== GENERATED_FORMAT ||
    contracts.tools === null ||
    typeof contracts.tools !== 'object'
  ) {
    throw new ToolDefinitionError(
      'stale_contract',
      `The generated contracts for tool "${name}" have format ${JSON.stringify(contracts.format)}, and this toolpact reads format ${GENERATED_FORMAT}. ${REGENERATE}.`,
      name,
    );
  }
  const entry = Object.hasOwn(contracts.tools, name) ? contracts.tools[name] : undefined;
  if (!entry) {
    const from =
      Array.isArray(contracts.sources) && contracts.sources.length
        ? ` (from ${contracts.sources.join(', ')})`
        : '';
    throw new ToolDefinitionError(
      'missing_contract',
      `Tool "${name}" (${declaration.label}) has no generated contract: the contracts module${from} was generated before it existed or from other files. ${REGENERATE}, including the file that declares "${name}".`,
      name,
    );
  }
  return entry;
}

function checkShape(declaration: TypedDeclaration, entry: GeneratedTool): void {
  const seen = parameterNames(declaration.fn);
  if (!seen) return;
  const call = entry.call;
  const expected = call.style === 'object' ? ['{…}'] : call.parameters.map((parameter) => parameter);
  const actual = call.context ? seen.slice(0, -1) : seen;
  const fits =
    call.style === 'object'
      ? actual.length === 1
      : actual.length === expected.length &&
        actual.every((parameter, index) => parameter === expected[index]);
  if (fits) return;
  throw new ToolDefinitionError(
    'stale_contract',
    `Tool "${declaration.name}": ${declaration.label} now takes (${seen.join(', ')}), but its generated contract was made for (${[
      ...expected,
      ...(call.context ? ['context'] : []),
    ].join(', ')}). The contract is stale. ${REGENERATE}.`,
    declaration.name,
  );
}
