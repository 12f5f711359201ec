import { createRule } from '../create-rule.js';
import { propertyPath, typesOf } from '../parameters.js';
import { nameWords } from '../text/words.js';

// Spellings of one concept; the key is what both normalise to.
const SAME_WORD: { readonly [word: string]: string } = {
  directory: 'dir',
  folder: 'dir',
  dirname: 'dir',
  num: 'number',
  msg: 'message',
  repo: 'repository',
  cfg: 'config',
  conf: 'config',
  configuration: 'config',
  img: 'image',
  doc: 'document',
  max: 'maximum',
  min: 'minimum',
  qty: 'quantity',
  lang: 'language',
  desc: 'description',
  addr: 'address',
  src: 'source',
  dst: 'destination',
  dest: 'destination',
  loc: 'location',
  txt: 'text',
  filepath: 'path',
  pathname: 'path',
  fname: 'filename',
  q: 'query',
  kw: 'keyword',
  keywords: 'keyword',
  lim: 'limit',
  pwd: 'password',
};
// Words that qualify a concept without changing it: `file_path` is the `path` of `read_file`.
const QUALIFIERS = new Set(['file', 'input', 'the', 'target', 'given']);

/** Consistency: one concept, one parameter name across the set (`path` in one tool, `file_path` in another). */
export const consistentParameterNames = createRule({
  name: 'consistent-parameter-names',
  meta: {
    type: 'suggestion',
    description:
      'Name one concept the same way in every tool of the set, e.g. path everywhere rather than path and file_path.',
    messages: {
      sameConcept:
        'Parameter "{parameter}" of "{tool}" names the same thing as "{other}" in {otherTools}. Use one name across the set ("{other}"), so a model does not mix them up between tools.',
    },
    defaultOptions: {},
  },
  check(context) {
    const groups = new Map<string, { name: string; tool: string; type: string }[]>();
    for (const tool of context.tools) {
      const properties = tool.contract.parameters.properties;
      if (properties === null || typeof properties !== 'object') continue;
      for (const [name, schema] of Object.entries(properties as Record<string, { type?: unknown }>)) {
        const key = conceptKey(name);
        if (key === '') continue;
        const type = typesOf((schema ?? {}) as Record<string, unknown>)[0] ?? 'any';
        const list = groups.get(key) ?? [];
        list.push({ name, tool: tool.name, type });
        groups.set(key, list);
      }
    }
    const byName = new Map(context.tools.map((tool) => [tool.name, tool]));
    for (const members of groups.values()) {
      const spellings = new Map<string, { count: number; tools: string[]; words: string }>();
      for (const member of members) {
        const entry = spellings.get(member.name) ?? {
          count: 0,
          tools: [],
          words: nameWords(member.name).join('_'),
        };
        entry.count++;
        entry.tools.push(member.tool);
        spellings.set(member.name, entry);
      }
      if (spellings.size < 2) continue;
      // The most used spelling is the one to keep; ties go to the one seen first.
      const [keep, kept] = [...spellings.entries()].reduce((best, next) =>
        next[1].count > best[1].count ? next : best,
      );
      for (const member of members) {
        if (member.name === keep) continue;
        const keptType = members.find((other) => other.name === keep)?.type ?? 'any';
        // Only the words differ in style (filePath and file_path): consistent-naming-style reports that.
        if (nameWords(member.name).join('_') === kept.words) continue;
        if (member.type !== keptType && member.type !== 'any' && keptType !== 'any') continue;
        const tool = byName.get(member.tool);
        if (!tool) continue;
        const otherTools = [...new Set(kept.tools)];
        context.report({
          tool,
          path: propertyPath('$.parameters', member.name),
          messageId: 'sameConcept',
          data: {
            tool: member.tool,
            parameter: member.name,
            other: keep,
            otherTools: otherTools.map((name) => `"${name}"`).join(', '),
          },
          related: otherTools,
        });
      }
    }
  },
});

/** What a parameter name means, with spelling, qualifiers and style removed: `file_path`, `filePath`, `path` → `path`. */
export function conceptKey(name: string): string {
  const words = nameWords(name).map((word) => (Object.hasOwn(SAME_WORD, word) ? SAME_WORD[word]! : word));
  const kept = words.filter((word) => !QUALIFIERS.has(word));
  return (kept.length > 0 ? kept : words).join('_');
}
