import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens as exactTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateTokens } from '../../src/schema/tokens.js';
import { CORPORA_DIR } from './corpora.js';

/** How far {@link estimateTokens} is from the exact o200k_base count over some texts. */
export interface EstimateError {
  readonly texts: number;
  /** The mean of |estimate − exact| / exact, one text at a time. */
  readonly meanPerText: number;
  /** The largest such error, and the 95th percentile. */
  readonly worstPerText: number;
  readonly p95PerText: number;
  /** (Σ estimate − Σ exact) / Σ exact: the error on a whole set, signed. */
  readonly overSet: number;
}

export function estimateError(texts: readonly string[]): EstimateError {
  const errors: number[] = [];
  let estimated = 0;
  let exact = 0;
  for (const text of texts) {
    const guess = estimateTokens(text);
    const truth = exactTokens(text);
    errors.push(Math.abs(guess - truth) / truth);
    estimated += guess;
    exact += truth;
  }
  errors.sort((a, b) => a - b);
  return {
    texts: texts.length,
    meanPerText: errors.reduce((sum, value) => sum + value, 0) / errors.length,
    worstPerText: errors.at(-1) ?? 0,
    p95PerText: errors[Math.floor(errors.length * 0.95)] ?? 0,
    overSet: (estimated - exact) / exact,
  };
}

/** Every BFCL function definition (four categories and the multi-turn docs), as compact JSON. */
export function bfclDefinitions(): string[] {
  const bfcl = join(CORPORA_DIR, 'bfcl');
  const definitions: string[] = [];
  for (const file of readdirSync(bfcl)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    for (const line of lines(join(bfcl, file))) {
      for (const definition of (JSON.parse(line) as { function: unknown[] }).function)
        definitions.push(JSON.stringify(definition));
    }
  }
  const docs = join(bfcl, 'multi_turn_func_doc');
  for (const file of readdirSync(docs).sort()) {
    for (const line of lines(join(docs, file))) definitions.push(JSON.stringify(JSON.parse(line)));
  }
  return definitions;
}

/** The descriptions of the BFCL definitions: prose, as a model reads it. */
export function bfclDescriptions(): string[] {
  return bfclDefinitions()
    .map((definition) => (JSON.parse(definition) as { description?: unknown }).description)
    .filter((text): text is string => typeof text === 'string' && text.trim().length > 0);
}

/** Seal-Tools' tool definitions (not used to fit the estimate), the first `limit`, as compact JSON. */
export function sealToolsDefinitions(limit = Number.POSITIVE_INFINITY): string[] {
  return lines(join(CORPORA_DIR, 'seal-tools', 'tool.jsonl'))
    .slice(0, limit)
    .map((line) => JSON.stringify(JSON.parse(line)));
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}
