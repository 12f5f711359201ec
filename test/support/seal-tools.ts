/**
 * Seal-Tools (test/corpora/seal-tools): 4,076 tools and 700 dev queries with the tools each answer
 * calls, as toolpact tools and a retrieval measure. Only the dev split is here; the test splits are held
 * out. Python type names map to JSON Schema (`str` → string, `int` → integer, `float` → number, `bool`
 * → boolean, `list` → array, `dict` → object; anything else leaves the type open). Seal-Tools has no risk
 * categories, so every tool is a `read` tool.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AnyTool, createTool, type JsonSchema } from '../../src/index.js';
import { CORPORA_DIR } from './corpora.js';

export const SEAL_TOOLS_DIR = join(CORPORA_DIR, 'seal-tools');

export interface SealTool {
  readonly api_name: string;
  readonly api_description: string;
  readonly field?: string;
  readonly parameters?: {
    readonly [name: string]: { readonly type?: string; readonly description?: string };
  };
  readonly required?: readonly string[];
}

export interface SealQuery {
  readonly id: string;
  readonly query: string;
  /** The distinct tools the answer calls. */
  readonly gold: readonly string[];
}

const TYPES: { readonly [python: string]: string } = {
  str: 'string',
  int: 'integer',
  float: 'number',
  bool: 'boolean',
  list: 'array',
  dict: 'object',
};

function lines(file: string): unknown[] {
  return readFileSync(join(SEAL_TOOLS_DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** The 4,076 tools as the corpus has them. */
export function loadSealTools(): SealTool[] {
  return lines('tool.jsonl') as SealTool[];
}

/** The 700 dev queries, each with its gold tools. */
export function loadSealDev(): SealQuery[] {
  return (lines('dev.jsonl') as { id: string; query: string; calling: { api: string }[] }[]).map((entry) => ({
    id: entry.id,
    query: entry.query,
    gold: [...new Set(entry.calling.map((call) => sealToolName(call.api)))],
  }));
}

/** The JSON Schema of a Seal-Tools tool's parameters. */
export function sealParameters(tool: SealTool): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, parameter] of Object.entries(tool.parameters ?? {})) {
    const type = parameter.type ? TYPES[parameter.type] : undefined;
    properties[name] = {
      ...(type ? { type } : {}),
      description: parameter.description || name,
    };
  }
  const required = (tool.required ?? []).filter((name) => Object.hasOwn(properties, name));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The tool name toolpact uses for a Seal-Tools name: the one name with a space
 * ("requestFirst Aid Assistance") has it replaced by `_`; the rest stay as they are.
 */
export function sealToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** A Seal-Tools tool as a toolpact tool that answers with its own name and arguments. */
export function sealTool(tool: SealTool): AnyTool {
  return createTool(
    {
      name: sealToolName(tool.api_name),
      description: tool.api_description || tool.api_name,
      category: 'read',
      parameters: sealParameters(tool),
    },
    { execute: (args) => ({ tool: tool.api_name, arguments: args }) },
  );
}

/** Recall figures of one retrieval run. */
export interface RecallRow {
  readonly queries: number;
  /** Found gold tools over all gold tools, in the top 5 and top 10. */
  readonly recallAt5: number;
  readonly recallAt10: number;
  /** Share of queries whose every gold tool is in the top 10. */
  readonly allFoundAt10: number;
}

/** The recall table of a ranking function: all queries, single-tool ones, multi-tool ones. */
export function measureRecall(
  queries: readonly SealQuery[],
  rank: (query: string) => readonly string[],
): { readonly all: RecallRow; readonly single: RecallRow; readonly multi: RecallRow } {
  const tally = () => ({ queries: 0, gold: 0, at5: 0, at10: 0, allFound: 0 });
  const all = tally();
  const single = tally();
  const multi = tally();
  for (const query of queries) {
    const top = rank(query.query).slice(0, 10);
    const at5 = query.gold.filter((name) => top.slice(0, 5).includes(name)).length;
    const at10 = query.gold.filter((name) => top.includes(name)).length;
    for (const row of [all, query.gold.length === 1 ? single : multi]) {
      row.queries++;
      row.gold += query.gold.length;
      row.at5 += at5;
      row.at10 += at10;
      if (at10 === query.gold.length) row.allFound++;
    }
  }
  const finish = (row: ReturnType<typeof tally>): RecallRow => ({
    queries: row.queries,
    recallAt5: row.at5 / Math.max(1, row.gold),
    recallAt10: row.at10 / Math.max(1, row.gold),
    allFoundAt10: row.allFound / Math.max(1, row.queries),
  });
  return { all: finish(all), single: finish(single), multi: finish(multi) };
}
