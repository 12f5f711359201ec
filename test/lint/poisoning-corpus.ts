import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findHiddenInstructions, type ToolDefinitionText } from '../../src/lint/index.js';
import { BFCL_DIR, convertBfclFunction } from '../support/bfcl.js';
import { CORPORA_DIR } from '../support/corpora.js';
import { loadSealTools, sealParameters, sealToolName } from '../support/seal-tools.js';

/** The two parts of the corpus: `dev` is what the rules were tuned on, `held-out` was not looked at while tuning. */
export type CorpusSplit = 'dev' | 'held-out';

export interface CorpusItem {
  readonly id: string;
  readonly source: string;
  readonly license: string;
  readonly tool: ToolDefinitionText;
}

export const TOOL_POISONING_DIR = join(CORPORA_DIR, 'tool-poisoning');

/** The poisoned and benign definitions of one split: the corpus files, plus half of Seal-Tools and of BFCL's function docs. */
export function loadPoisoningCorpus(split: CorpusSplit): { poisoned: CorpusItem[]; benign: CorpusItem[] } {
  const file = JSON.parse(readFileSync(join(TOOL_POISONING_DIR, `${split}.json`), 'utf8')) as {
    poisoned: CorpusItem[];
    benign: CorpusItem[];
  };
  const wanted = split === 'dev' ? 0 : 1;
  const seal = loadSealTools()
    .filter((_, index) => index % 2 === wanted)
    .map((tool) => ({
      id: `seal-tools#${tool.api_name}`,
      source: 'seal-tools',
      license: 'Apache-2.0',
      tool: {
        name: sealToolName(tool.api_name),
        description: tool.api_description,
        parameters: sealParameters(tool),
      },
    }));
  return { poisoned: file.poisoned, benign: [...file.benign, ...seal, ...bfclFunctions(wanted)] };
}

/** BFCL's function definitions, every distinct one once, alternately in dev and held-out. */
function bfclFunctions(wanted: number): CorpusItem[] {
  const seen = new Map<string, CorpusItem>();
  const files = readdirSync(BFCL_DIR).filter((file) => file.startsWith('BFCL_v4_'));
  for (const file of files.sort()) {
    for (const line of readFileSync(join(BFCL_DIR, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      for (const raw of (JSON.parse(line) as { function: Parameters<typeof convertBfclFunction>[0][] })
        .function) {
        const fn = convertBfclFunction(raw);
        const key = `${fn.name}\u0000${fn.description}`;
        if (!seen.has(key)) {
          seen.set(key, {
            id: `bfcl#${fn.name}`,
            source: 'bfcl',
            license: 'Apache-2.0',
            tool: { name: fn.name, description: fn.description, parameters: fn.parameters },
          });
        }
      }
    }
  }
  return [...seen.values()].filter((_, index) => index % 2 === wanted);
}

export interface CorpusMeasure {
  readonly poisoned: number;
  readonly benign: number;
  /** Poisoned definitions with an error-level finding. */
  readonly caught: readonly string[];
  readonly missed: readonly string[];
  /** Benign definitions with an error-level finding. */
  readonly falseErrors: readonly string[];
  /** Benign definitions with a warning and no error. */
  readonly falseWarnings: readonly string[];
  readonly recall: number;
  readonly precision: number;
  readonly benignErrorRate: number;
}

/** Recall (poisoned caught at error level), precision, and the share of benign definitions flagged at error level. */
export function measureCorpus(corpus: { poisoned: CorpusItem[]; benign: CorpusItem[] }): CorpusMeasure {
  const errorOf = (item: CorpusItem) =>
    findHiddenInstructions(item.tool).some((finding) => finding.severity === 'error');
  const caught = corpus.poisoned.filter(errorOf).map((item) => item.id);
  const missed = corpus.poisoned.filter((item) => !caught.includes(item.id)).map((item) => item.id);
  const falseErrors: string[] = [];
  const falseWarnings: string[] = [];
  for (const item of corpus.benign) {
    const findings = findHiddenInstructions(item.tool);
    if (findings.some((finding) => finding.severity === 'error')) falseErrors.push(item.id);
    else if (findings.length > 0) falseWarnings.push(item.id);
  }
  return {
    poisoned: corpus.poisoned.length,
    benign: corpus.benign.length,
    caught,
    missed,
    falseErrors,
    falseWarnings,
    recall: caught.length / corpus.poisoned.length,
    precision: caught.length / Math.max(1, caught.length + falseErrors.length),
    benignErrorRate: falseErrors.length / corpus.benign.length,
  };
}
