import type { JsonSchema } from '../contract/index.js';
import type { LintRule, RuleContext, RuleMeta, RuleType } from './types.js';

/** Where each rule's docs page lives; a rule's page is `<base><rule name>.md`. */
export const RULE_DOCS_BASE = 'https://github.com/toolpact/toolpact/blob/main/docs/rules/';

/** The name rule names follow: lower-case words joined by `-`. */
export const RULE_NAME_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** What a rule definition gives {@link createRule}; the docs URL is derived from the name. */
export interface RuleDefinition<MessageId extends string, Options> {
  readonly name: string;
  readonly meta: {
    readonly type: RuleType;
    readonly description: string;
    readonly messages: { readonly [Id in MessageId]: string };
    readonly schema?: JsonSchema;
    readonly defaultOptions: Options;
    readonly wording?: boolean;
  };
  readonly check: (context: RuleContext<MessageId, Options>) => void;
}

/**
 * Makes a lint rule that describes itself, in the manner of typescript-eslint's `createRule`: name,
 * type, a one-line imperative description, the docs URL, messages with `{placeholders}`, an options
 * schema and its defaults. A malformed definition throws at once.
 *
 * @example
 * export const noTodo = createRule({
 *   name: 'no-todo',
 *   meta: {
 *     type: 'suggestion',
 *     description: 'Remove TODO notes from descriptions.',
 *     messages: { todo: 'The description of "{tool}" still says TODO.' },
 *     defaultOptions: {},
 *   },
 *   check(context) {
 *     for (const tool of context.tools)
 *       if (tool.contract.description.includes('TODO'))
 *         context.report({ tool, path: '$.description', messageId: 'todo', data: { tool: tool.name } });
 *   },
 * });
 */
export function createRule<MessageId extends string, Options extends object>(
  definition: RuleDefinition<MessageId, Options>,
): LintRule<MessageId, Options> {
  const { name, meta, check } = definition;
  if (!RULE_NAME_PATTERN.test(name)) {
    throw new TypeError(`Lint rule name "${name}" must be lower-case words joined by "-", e.g. "no-todo".`);
  }
  if (Object.keys(meta.messages).length === 0) {
    throw new TypeError(`Lint rule "${name}" has no messages; give it at least one.`);
  }
  if (!/^[A-Z].*\.$/.test(meta.description) || meta.description.includes('\n')) {
    throw new TypeError(
      `Lint rule "${name}": the description must be one sentence starting with a capital and ending with ".".`,
    );
  }
  const full: RuleMeta<MessageId, Options> = Object.freeze({
    type: meta.type,
    description: meta.description,
    docs: `${RULE_DOCS_BASE}${name}.md`,
    messages: Object.freeze({ ...meta.messages }),
    schema: meta.schema ?? { type: 'object', additionalProperties: false },
    defaultOptions: Object.freeze({ ...meta.defaultOptions }),
    wording: meta.wording ?? false,
  });
  return Object.freeze({ name, meta: full, check });
}
