import {
  type AnyTool,
  type ContentType,
  createTool,
  type JsonSchema,
  resolveEffects,
  type ToolCategory,
  type ToolContract,
  type ToolEffects,
} from '../../src/index.js';
import { type LintFinding, lint, RULES } from '../../src/lint/index.js';

export interface ToolSpec {
  readonly category?: ToolCategory;
  readonly parameters?: JsonSchema;
  readonly effects?: Partial<ToolEffects>;
  readonly disable?: readonly string[];
  /** The result content the tool declares (`returns.content`). */
  readonly content?: readonly ContentType[];
}

/** A real tool built with createTool (the wide name profile), whose execute echoes its arguments. */
export function tool(name: string, description: string, spec: ToolSpec = {}): AnyTool {
  return createTool(
    {
      name,
      description,
      category: spec.category ?? 'read',
      parameters: spec.parameters ?? { type: 'object', properties: {} },
      ...(spec.effects ? { effects: spec.effects } : {}),
      ...(spec.content ? { returns: { content: spec.content } } : {}),
    },
    { execute: (args) => args, ...(spec.disable ? { meta: { lint: { disable: spec.disable } } } : {}) },
  );
}

/**
 * A contract as plain data, not built by `createTool`: a tool set loaded from a file or another
 * library, which nothing has checked.
 */
export function contract(
  name: string,
  description: string,
  spec: ToolSpec & { readonly returns?: JsonSchema } = {},
): ToolContract {
  const category = spec.category ?? 'read';
  return {
    name,
    description,
    category,
    parameters: spec.parameters ?? { type: 'object', properties: {} },
    ...(spec.returns ? { returns: { schema: spec.returns } } : {}),
    effects: resolveEffects(category, spec.effects),
  };
}

/** Object parameters from a map of property schemas; every property is required. */
export function params(properties: { [name: string]: JsonSchema }): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** The findings of one rule alone (every other rule off), with the given options. */
export function runRule(
  rule: string,
  tools: readonly (AnyTool | ToolContract)[],
  options?: object,
): LintFinding[] {
  const rules = Object.fromEntries(
    Object.keys(RULES).map((name) => [
      name,
      name === rule ? (options ? ['error', options] : 'error') : 'off',
    ]),
  );
  return [...lint(tools, { config: { rules } as never }).findings];
}

/** A valid/invalid table for one rule, in the manner of typescript-eslint's RuleTester. */
export interface RuleCases {
  readonly valid: readonly {
    readonly name: string;
    readonly tools: readonly (AnyTool | ToolContract)[];
    readonly options?: object;
  }[];
  readonly invalid: readonly {
    readonly name: string;
    readonly tools: readonly (AnyTool | ToolContract)[];
    readonly options?: object;
    /** Each expected finding: the tool, the message id and, optionally, the path. */
    readonly findings: readonly { tool: string | undefined; messageId: string; path?: string }[];
  }[];
}
