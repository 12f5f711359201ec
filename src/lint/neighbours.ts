import type { LintTool } from './types.js';

/** Name words that say what a tool does rather than what it acts on; sharing one does not make tools neighbours. */
export const VERB_WORDS: ReadonlySet<string> = new Set([
  'get',
  'set',
  'list',
  'read',
  'write',
  'create',
  'delete',
  'update',
  'search',
  'find',
  'fetch',
  'run',
  'execute',
  'exec',
  'send',
  'add',
  'remove',
  'make',
  'check',
  'calculate',
  'calc',
  'compute',
  'convert',
  'generate',
  'open',
  'close',
  'start',
  'stop',
  'query',
  'lookup',
  'edit',
  'post',
  'put',
  'patch',
  'load',
  'save',
  'parse',
  'format',
  'validate',
  'count',
  'build',
  'show',
  'view',
  'describe',
  'retrieve',
  'download',
  'upload',
  'grep',
  'glob',
  'call',
  'invoke',
  'do',
  'is',
  'has',
  'to',
  'by',
  'of',
  'for',
  'and',
  'the',
  'a',
  'an',
  'in',
  'on',
  'from',
  'with',
  'all',
  'new',
  'info',
  'data',
  'details',
]);

/**
 * Finds, for each tool, the tools a model could confuse with it: those whose names share a word that
 * is not a verb (`read_file` and `write_file` share "file") first, then those of the same category; at
 * most `limit`. The index is built once per set, so a large set costs linear time, not quadratic.
 *
 * @example
 * const neighboursOf = neighbourIndex(tools);
 * neighboursOf(readFile).map((t) => t.name); // ['write_file', 'list_dir']
 */
export function neighbourIndex(tools: readonly LintTool[], limit = 3): (tool: LintTool) => LintTool[] {
  const byWord = new Map<string, LintTool[]>();
  const byCategory = new Map<string, LintTool[]>();
  const position = new Map(tools.map((tool, index) => [tool, index]));
  for (const tool of tools) {
    for (const word of nounsOf(tool)) {
      const list = byWord.get(word) ?? [];
      // Only the first few with each word can ever be listed.
      if (list.length <= limit) list.push(tool);
      byWord.set(word, list);
    }
    const list = byCategory.get(tool.contract.category) ?? [];
    if (list.length <= limit) list.push(tool);
    byCategory.set(tool.contract.category, list);
  }
  return (tool) => {
    const sharing = new Set<LintTool>();
    for (const word of nounsOf(tool))
      for (const other of byWord.get(word) ?? []) if (other !== tool) sharing.add(other);
    const ordered = [...sharing].sort((a, b) => position.get(a)! - position.get(b)!);
    const rest = (byCategory.get(tool.contract.category) ?? []).filter(
      (other) => other !== tool && !sharing.has(other),
    );
    return [...ordered, ...rest].slice(0, limit);
  };
}

function nounsOf(tool: LintTool): Set<string> {
  return new Set(tool.nameWords.filter((word) => !VERB_WORDS.has(word) && word.length > 1));
}

/** True when the description of `tool` names another tool of the set (by its exact name, any case). */
export function namesAnotherTool(tool: LintTool, lowerNames: ReadonlySet<string>): boolean {
  for (const identifier of tool.identifiers) {
    if (identifier !== tool.name.toLowerCase() && lowerNames.has(identifier)) return true;
  }
  return false;
}
