import { TOOL_BRAND, type Tool, type ToolExecuteContext, type ToolMeta } from '../contract/tool.js';
import type { ArgumentValidator } from '../dispatch/validation.js';
import { ToolDefinitionError } from '../errors/index.js';
import { bindContract, checkDeclaration, type TypedDeclaration } from './bind-contract.js';
import type { TypedToolOptions } from './typed-tool-options.js';

// biome-ignore lint/suspicious/noExplicitAny: any function may be a tool.
type AnyFunction = (...args: any[]) => unknown;

/** The arguments object of a type-first tool, as the model sends it (after validation). */
export type TypedArguments = { [name: string]: unknown };

/** A standard (TC39) method decorator that marks a method as a tool. */
export type ToolMethodDecorator = <This, F extends AnyFunction>(
  method: F,
  context: ClassMethodDecoratorContext<This, F>,
) => void;

/**
 * Marks a function as a type-first tool: its signature and doc comment are the contract, read by
 * `toolpact gen` into a generated module that you pass as `contracts`. The name is the function's own
 * unless `name` is given. Parameters may be positional (`read_file(path: string, range?: LineRange)`,
 * spread back in order at call time) or one object parameter; a last parameter typed
 * `ToolExecuteContext` receives the call's context.
 *
 * The contract is bound when the tool is registered: a tool whose generated contract is missing, or no
 * longer fits the function, fails there with a {@link ToolDefinitionError} that says to run `toolpact gen`.
 *
 * Called with options alone, `tool` is a standard method decorator: `@tool({ contracts })`; collect the
 * decorated methods of an instance with {@link toolsOf}.
 *
 * @example
 * import contracts from './contracts.generated.js';
 * /**
 *  * Read one UTF-8 file of the workspace. ...
 *  * @param path File path relative to the workspace root.
 *  *\/
 * export async function read_file(path: string): Promise<string> { ... }
 * export const readFile = tool(read_file, { category: 'read', contracts });
 */
export function tool<F extends AnyFunction>(
  fn: F,
  options: TypedToolOptions,
): Tool<TypedArguments, Awaited<ReturnType<F>>>;
export function tool(options: TypedToolOptions): ToolMethodDecorator;
export function tool(
  first: AnyFunction | TypedToolOptions,
  options?: TypedToolOptions,
): Tool<TypedArguments, unknown> | ToolMethodDecorator {
  if (typeof first === 'function') {
    const name = options?.name ?? first.name;
    return lazyTool({
      name,
      fn: first,
      receiver: undefined,
      options: options!,
      label: `function ${name || '(anonymous)'}`,
    });
  }
  if (first === null || typeof first !== 'object') {
    throw new ToolDefinitionError(
      'invalid_option',
      `tool() takes a function and options, or options alone as a method decorator; received ${first === null ? 'null' : typeof first}.`,
    );
  }
  const decoratorOptions = first;
  return (method, context) => {
    if (context.kind !== 'method' || context.private || typeof context.name !== 'string') {
      throw new ToolDefinitionError(
        'invalid_option',
        `@tool() marks public methods with a string name; it was put on ${context.private ? 'a private ' : ''}${context.kind} ${String(context.name)}.`,
      );
    }
    const methodName = context.name;
    context.addInitializer(function (this: unknown) {
      const owner = this as object;
      let list = DECORATED.get(owner);
      if (!list) {
        list = [];
        DECORATED.set(owner, list);
      }
      list.push({ methodName, method, options: decoratorOptions });
    });
  };
}

interface DecoratedMethod {
  readonly methodName: string;
  readonly method: AnyFunction;
  readonly options: TypedToolOptions;
}

const DECORATED = new WeakMap<object, DecoratedMethod[]>();

/**
 * The tools of an object whose class marks methods with `@tool()`, bound to that object, in declaration
 * order (a class, for its static methods). Throws {@link ToolDefinitionError} when none are marked.
 *
 * @example
 * class Workspace {
 *   constructor(readonly root: string) {}
 *   /** List a folder. ... *\/
 *   @tool({ category: 'read', contracts }) list_dir(path = '.') { ... }
 * }
 * registry.register(toolsOf(new Workspace(root)));
 */
export function toolsOf(owner: object): Tool<TypedArguments, unknown>[] {
  const list =
    owner !== null && (typeof owner === 'object' || typeof owner === 'function')
      ? DECORATED.get(owner)
      : undefined;
  if (!list || list.length === 0) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `toolsOf() received ${describe(owner)}, which has no methods marked with @tool(). Mark methods with @tool({ contracts }) and pass an instance of their class.`,
    );
  }
  const className =
    (typeof owner === 'function'
      ? owner.name
      : (owner as { constructor?: { name?: string } }).constructor?.name) || 'class';
  return list.map(({ methodName, method, options }) => {
    const name = options.name ?? methodName;
    return lazyTool({
      name,
      fn: method,
      receiver: owner,
      options,
      label: `method ${className}.${methodName}`,
    });
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object' && typeof value !== 'function') return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: string } }).constructor?.name;
  return name ? `an instance of ${name}` : 'an object';
}

/** A tool whose contract is bound on first use, which in practice is registration. */
function lazyTool(declaration: TypedDeclaration): Tool<TypedArguments, unknown> {
  checkDeclaration(declaration);
  let bound: Tool<TypedArguments, unknown> | undefined;
  const resolve = () => {
    bound ??= bindContract(declaration) as Tool<TypedArguments, unknown>;
    return bound;
  };
  const meta: ToolMeta = Object.freeze({ ...declaration.options.meta });
  return Object.freeze({
    [TOOL_BRAND]: true as const,
    get contract() {
      return resolve().contract;
    },
    get validate(): ArgumentValidator<TypedArguments> {
      return resolve().validate;
    },
    get meta() {
      return bound?.meta ?? meta;
    },
    timeoutMs: declaration.options?.timeoutMs,
    execute: (args: TypedArguments, context: ToolExecuteContext) => resolve().execute(args, context),
  });
}
