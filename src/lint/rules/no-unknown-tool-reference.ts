import { closestNames } from '../../util/closest.js';
import { createRule } from '../create-rule.js';
import { parametersOf } from '../parameters.js';
import type { LintTool } from '../types.js';

// An identifier that can only be a name in code: words joined by "_", "." or ":", or camelCase.
const IDENT = '[A-Za-z][A-Za-z0-9]*(?:[_.:][A-Za-z0-9]+)+|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*';
const REFERENCE_PATTERNS: readonly RegExp[] = [
  // `grep_files`, `search-docs`: code spans name code things; a hyphen counts inside them only.
  /`([A-Za-z][A-Za-z0-9]*(?:[_.:-][A-Za-z0-9]+)*)`/g,
  new RegExp(
    String.raw`\b(?:call|calling|use|using|invoke|invoking|run|try|prefer|see|then|instead|via|with)\s+(?:the\s+)?(${IDENT})\b`,
    'gi',
  ),
  new RegExp(String.raw`\b(${IDENT})\s+(?:tool|function)\b`, 'g'),
  new RegExp(String.raw`(?:调用|使用|改用|先用|再用|请用|用)\s*(${IDENT})`, 'g'),
  new RegExp(String.raw`(${IDENT})\s*(?:工具|函数)`, 'g'),
];
const FILE_EXTENSIONS =
  /\.(?:md|txt|json|ya?ml|toml|csv|tsv|xml|html?|css|js|mjs|cjs|ts|tsx|jsx|py|rb|go|rs|java|c|h|cpp|sh|png|jpe?g|gif|svg|pdf|zip|gz|tar|log|ini|cfg|conf|env|lock)$/i;
const NOT_TOOLS = new Set([
  'snake_case',
  'camelcase',
  'kebab-case',
  'e.g',
  'i.e',
  'utf-8',
  'utf-16',
  'x-api-key',
]);

/** Checklist item 2, the border's other side: a tool the description sends the model to must exist. */
export const noUnknownToolReference = createRule({
  name: 'no-unknown-tool-reference',
  meta: {
    type: 'problem',
    description: 'Refer only to tools that are registered in the same set.',
    messages: {
      unknown:
        'The description of "{tool}" sends the model to "{reference}", which is not a tool in this set{suggestion}. Name a registered tool, or remove the reference: a model told to call it will call a tool that does not exist.',
    },
    schema: {
      type: 'object',
      properties: { ignore: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
      additionalProperties: false,
    },
    defaultOptions: { ignore: [] as string[] },
    wording: true,
  },
  check(context) {
    const lowerNames = new Set([...context.toolNames].map((name) => name.toLowerCase()));
    const lowerParameters = new Set([...context.parameterNames].map((name) => name.toLowerCase()));
    const ignore = new Set(context.options.ignore.map((name) => name.toLowerCase()));
    for (const tool of context.tools) {
      const known = schemaWords(tool);
      const seen = new Set<string>();
      for (const reference of referencesIn(tool.contract.description)) {
        const lower = reference.toLowerCase();
        if (seen.has(lower)) continue;
        seen.add(lower);
        if (
          lowerNames.has(lower) ||
          lowerParameters.has(lower) ||
          known.has(lower) ||
          ignore.has(lower) ||
          NOT_TOOLS.has(lower) ||
          !looksLikeToolName(reference)
        )
          continue;
        const closest = closestNames(reference, context.toolNames, 1)[0];
        context.report({
          tool,
          path: '$.description',
          messageId: 'unknown',
          data: { tool: tool.name, reference, suggestion: closest ? ` (did you mean "${closest}"?)` : '' },
          related: closest ? [closest] : [],
        });
      }
    }
  },
});

/** The identifiers a description refers to as tools, in order of appearance. */
export function referencesIn(description: string): string[] {
  const found: { index: number; name: string }[] = [];
  for (const pattern of REFERENCE_PATTERNS) {
    for (const match of description.matchAll(pattern)) {
      const name = match[1];
      if (name) found.push({ index: match.index ?? 0, name });
    }
  }
  return found.sort((a, b) => a.index - b.index).map((item) => item.name.replace(/[.:]+$/, ''));
}

function looksLikeToolName(reference: string): boolean {
  if (reference.length < 3 || reference.length > 128) return false;
  if (FILE_EXTENSIONS.test(reference) || /^v?\d/.test(reference)) return false;
  const segments = reference.split(/[_.:-]/);
  if (segments.length > 1 && /^\d+$/.test(segments[segments.length - 1]!)) return false;
  return /[_.:-]/.test(reference) || /[a-z][A-Z]/.test(reference);
}

/** Words of the tool's own schema (property names, enum values, `const`s): a description may quote them. */
function schemaWords(tool: LintTool): Set<string> {
  const words = new Set<string>([tool.name.toLowerCase()]);
  for (const parameter of parametersOf(tool.contract.parameters)) {
    words.add(parameter.name.toLowerCase());
    const values = Array.isArray(parameter.schema.enum) ? parameter.schema.enum : [parameter.schema.const];
    for (const value of values) if (typeof value === 'string') words.add(value.toLowerCase());
  }
  return words;
}
