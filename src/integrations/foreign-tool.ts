import {
  CATEGORIES,
  isToolCategory,
  type JsonSchema,
  type ToolCategory,
  type ToolEffects,
} from '../contract/index.js';
import type { AnyTool, ToolExecuteContext, ToolMeta } from '../contract/tool.js';
import { createTool } from '../define/create-tool.js';
import { ToolDefinitionError } from '../errors/index.js';
import { upgradeSchema } from '../schema/upgrade-schema.js';

/** Options shared by `fromAiSdkTool`, `fromLangChainTool` and `fromOpenAIAgentsTool`. */
export interface WrapToolOptions {
  /** The risk category: the gate's allowlist starts from it. Required: a framework tool has none. */
  readonly category: ToolCategory;
  /** The description the model reads; default: the framework tool's own. */
  readonly description?: string;
  /** Overrides of the category's default effects. */
  readonly effects?: Partial<ToolEffects>;
  /** Wall-clock limit for one call, in milliseconds. */
  readonly timeoutMs?: number;
  /** Extra facts for the gate and lint (`meta.framework` is set for you). */
  readonly meta?: ToolMeta;
  /**
   * Told when something had to be filled in (a missing description). Default: a process warning
   * (`process.emitWarning`), or `console.warn` where there is no `process`.
   */
  readonly onWarning?: (warning: WrapToolWarning) => void;
}

/** Something a wrapped tool lacked and was given in its place. */
export interface WrapToolWarning {
  readonly code: 'description_defaulted';
  readonly tool: string;
  readonly framework: Framework;
  readonly message: string;
}

/** The frameworks whose tools can be wrapped, by the slug `meta.framework` carries. */
export type Framework = 'ai-sdk' | 'langchain' | 'openai-agents';

const FRAMEWORK_NAMES: { readonly [F in Framework]: string } = {
  'ai-sdk': 'the AI SDK',
  langchain: 'LangChain',
  'openai-agents': 'the OpenAI Agents SDK',
};

/** What a framework tool gives toolpact: its name, text and schema, and how to run it. */
export interface ForeignTool {
  readonly framework: Framework;
  readonly name: string;
  readonly title?: string;
  readonly description: string | undefined;
  readonly parameters: JsonSchema;
  readonly execute: (args: { [key: string]: unknown }, context: ToolExecuteContext) => unknown;
}

/**
 * A framework's tool as a toolpact tool: the contract from what the framework knows (draft-07 schemas
 * are read as 2020-12), the category the caller gives (a missing one throws {@link ToolDefinitionError}
 * naming the tool and the five categories), a missing description filled in with a stated placeholder
 * and a warning, so that neither the caller nor lint can miss it.
 */
export function wrapForeignTool(foreign: ForeignTool, options: WrapToolOptions | undefined): AnyTool {
  const { framework, name } = foreign;
  const label = `The tool ${JSON.stringify(name)} from ${FRAMEWORK_NAMES[framework]}`;
  if (options === null || typeof options !== 'object') {
    throw new ToolDefinitionError(
      'invalid_category',
      `${label} was wrapped without options; pass { category } with one of ${CATEGORIES.join(', ')}, so the permission gate knows its risk.`,
      typeof name === 'string' ? name : undefined,
    );
  }
  if (!isToolCategory(options.category)) {
    throw new ToolDefinitionError(
      'invalid_category',
      `${label} has category ${JSON.stringify(options.category)}; give { category } one of ${CATEGORIES.join(', ')}, so the permission gate knows its risk.`,
      typeof name === 'string' ? name : undefined,
    );
  }
  const given = options.description ?? foreign.description;
  let description = typeof given === 'string' ? given.trim() : '';
  if (description === '') {
    description = `${name} (wrapped from ${FRAMEWORK_NAMES[framework]} without a description).`;
    warn(options.onWarning, {
      code: 'description_defaulted',
      tool: name,
      framework,
      message: `${label} has no description, so the model is told only "${description}". Pass { description } saying what it does, when to use it and when not, and its side effects; lint reports the placeholder until then.`,
    });
  }
  const parameters = upgradeSchema(foreign.parameters);
  return createTool(
    {
      name,
      ...(foreign.title ? { title: foreign.title } : {}),
      description,
      parameters: parameters.type === undefined ? { type: 'object', ...parameters } : parameters,
      category: options.category,
      ...(options.effects ? { effects: options.effects } : {}),
    },
    {
      execute: foreign.execute,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      meta: { ...options.meta, framework },
    },
  );
}

function warn(onWarning: WrapToolOptions['onWarning'], warning: WrapToolWarning): void {
  if (onWarning) {
    onWarning(warning);
    return;
  }
  const host = (globalThis as { process?: { emitWarning?: (message: string, options: object) => void } })
    .process;
  if (typeof host?.emitWarning === 'function') {
    host.emitWarning(warning.message, { type: 'ToolpactWarning', code: warning.code });
  } else {
    console.warn(warning.message);
  }
}
