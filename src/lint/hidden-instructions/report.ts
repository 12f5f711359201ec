import type { LintTool, RuleContext } from '../types.js';
import { scanDefinition } from './scan.js';
import type { SignalCue, SignalKind } from './signals.js';

const PHRASE_LIMIT = 80;

/**
 * A marked text as a person can read it in a message: invisible characters spelled as `⟨U+200B⟩`,
 * long white space counted, long text cut.
 *
 * @example
 * visiblePhrase('read\u200B me'); // 'read⟨U+200B⟩ me'
 */
export function visiblePhrase(text: string): string {
  let out = '';
  for (const character of text) {
    const code = character.codePointAt(0)!;
    out +=
      /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(character) && character !== '\n'
        ? `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`
        : character;
  }
  out = out
    .replace(/[ \t\u00A0\u3000]{4,}|\n{2,}/gu, (run) => ` ⟨${run.length} blanks⟩ `)
    .replace(/\n/g, ' ');
  return out.length > PHRASE_LIMIT ? `${out.slice(0, PHRASE_LIMIT - 1)}…` : out;
}

/** Reports every signal of `kind` in every tool of the set, weak evidence one severity lower. */
export function reportSignals(context: RuleContext<SignalCue, object>, kind: SignalKind): void {
  for (const tool of context.tools) {
    for (const signal of scanDefinition(definitionOf(tool))) {
      if (signal.kind !== kind) continue;
      context.report({
        tool,
        path: signal.path,
        messageId: signal.cue,
        data: { tool: tool.name, field: signal.field, phrase: visiblePhrase(signal.span.text) },
        span: signal.span,
        weak: !signal.error,
      });
    }
  }
}

const definitions = new WeakMap<
  LintTool,
  { name: string; title?: string; description: string; parameters: unknown }
>();

function definitionOf(tool: LintTool) {
  let definition = definitions.get(tool);
  if (!definition) {
    const { name, title, description, parameters } = tool.contract;
    definition = { name, ...(title !== undefined ? { title } : {}), description, parameters };
    definitions.set(tool, definition);
  }
  return definition;
}
