import { ToolDefinitionError } from '../errors/index.js';
import type { GetPromptResult, PromptMessage, WireMeta } from './mcp-content.js';
import {
  type Completer,
  checkCompleters,
  checkDescription,
  checkOfferingName,
  type OfferingMeta,
  type ReadContext,
} from './read-context.js';

/** The brand that marks a value as a toolpact prompt. */
export const PROMPT_BRAND = Symbol.for('toolpact.prompt');

/** One argument of a prompt. Every argument is a string, as MCP sends them. */
export interface PromptArgumentDefinition {
  readonly description?: string;
  /** A `prompts/get` without it is refused before `get` runs. */
  readonly required?: boolean;
  /** Suggestions for `completion/complete`. */
  readonly complete?: Completer;
}

/**
 * What a prompt's `get` answers: text (one user message), the messages themselves, or a whole result
 * with a description.
 */
export type PromptGetResult =
  | string
  | readonly PromptMessage[]
  | { readonly description?: string; readonly messages: readonly PromptMessage[]; readonly _meta?: WireMeta };

/** Options of {@link definePrompt}. */
export interface PromptDefinition {
  /** Unique in a registry; what `prompts/get` names. */
  readonly name: string;
  readonly title?: string;
  /** What the prompt is for: model-visible, so linted like a tool's description. */
  readonly description: string;
  /** The arguments, by name, in the order a client should ask for them. */
  readonly arguments?: { readonly [name: string]: PromptArgumentDefinition };
  readonly meta?: OfferingMeta;
  /** The messages, for arguments already checked (every required one present, no unknown one). */
  readonly get: (
    args: Readonly<Record<string, string>>,
    context: ReadContext,
  ) => PromptGetResult | Promise<PromptGetResult>;
}

/** A prompt made by {@link definePrompt}, enrolled with `registry.registerPrompt`. */
export interface Prompt extends PromptDefinition {
  readonly [PROMPT_BRAND]: true;
  readonly arguments: { readonly [name: string]: PromptArgumentDefinition };
  readonly meta: OfferingMeta;
}

export type { GetPromptResult, PromptMessage };

/**
 * Defines a prompt: a template of messages a client offers its user (a slash command), with
 * arguments that are checked before `get` runs and can be completed. Mistakes (no description, a
 * completion for an unknown argument) throw {@link ToolDefinitionError} here.
 *
 * @example
 * const review = definePrompt({
 *   name: 'review',
 *   description: 'Ask for a review of one file, with the project\'s conventions.',
 *   arguments: { path: { description: 'The file to review.', required: true, complete: listFiles } },
 *   get: ({ path }) => `Review ${path} against CONTRIBUTING.md.`,
 * });
 */
export function definePrompt(definition: PromptDefinition): Prompt {
  const name = checkOfferingName('prompt', definition?.name);
  const description = checkDescription('prompt', name, definition.description);
  const args = definition.arguments ?? {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `The prompt "${name}" has arguments that are not an object; give one entry per argument name.`,
      name,
    );
  }
  for (const [argument, spec] of Object.entries(args)) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(argument) || spec === null || typeof spec !== 'object') {
      throw new ToolDefinitionError(
        'invalid_option',
        `The prompt "${name}" has the argument ${JSON.stringify(argument)}, which ${spec === null || typeof spec !== 'object' ? 'is not described by an object' : 'is not a name of 1 to 64 of A-Z a-z 0-9 _ . -'}; fix its entry.`,
        name,
      );
    }
    if (spec.complete !== undefined)
      checkCompleters('prompt', name, { [argument]: spec.complete }, [argument]);
  }
  if (typeof definition.get !== 'function') {
    throw new ToolDefinitionError(
      'invalid_option',
      `The prompt "${name}" has no get function; give one.`,
      name,
    );
  }
  return Object.freeze({
    ...definition,
    description,
    arguments: Object.freeze({ ...args }),
    meta: Object.freeze({ ...definition.meta }),
    [PROMPT_BRAND]: true as const,
  });
}

/** True when `value` is a prompt made by {@link definePrompt}. */
export function isPrompt(value: unknown): value is Prompt {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as Record<symbol, unknown>)[PROMPT_BRAND] === true &&
    typeof (value as Prompt).get === 'function'
  );
}
