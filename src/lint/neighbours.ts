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
 * The tools a model could confuse with `tool`: those of the same category, and those whose names
 * share a word that is not a verb (`read_file` and `write_file` share "file"). Those sharing a word
 * come first; at most `limit`.
 *
 * @example
 * neighboursOf(readFile, tools).map((t) => t.name); // ['write_file', 'list_dir']
 */
export function neighboursOf(tool: LintTool, tools: readonly LintTool[], limit = 3): LintTool[] {
  const nouns = new Set(tool.nameWords.filter((word) => !VERB_WORDS.has(word) && word.length > 1));
  const sharing: LintTool[] = [];
  const sameCategory: LintTool[] = [];
  for (const other of tools) {
    if (other === tool) continue;
    if (other.nameWords.some((word) => nouns.has(word))) sharing.push(other);
    else if (other.contract.category === tool.contract.category) sameCategory.push(other);
    if (sharing.length >= limit) break;
  }
  return [...sharing, ...sameCategory].slice(0, limit);
}

/** True when the description of `tool` names another tool of the set (by its exact name, any case). */
export function namesAnotherTool(tool: LintTool, lowerNames: ReadonlySet<string>): boolean {
  for (const identifier of tool.identifiers) {
    if (identifier !== tool.name.toLowerCase() && lowerNames.has(identifier)) return true;
  }
  return false;
}
