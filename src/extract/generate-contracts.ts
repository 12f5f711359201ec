// What `toolpact gen` does with the contracts it extracts: write the generated module, or, checking,
// compare it with the one on the disk.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ContractChanges, compareContracts } from './compare-contracts.js';
import type { ExtractDiagnostic } from './diagnostics.js';
import { extractContracts } from './extract-contracts.js';
import { parseModule, renderModule } from './render-module.js';

/** What one generation came to. */
export type GenerateOutcome =
  | { readonly status: 'failed'; readonly diagnostics: readonly ExtractDiagnostic[] }
  | { readonly status: 'no_tools' }
  | {
      /** `written`, or `unchanged` when the module already said the same; checking, `up_to_date`, `stale` or `missing`. */
      readonly status: 'written' | 'unchanged' | 'up_to_date' | 'stale' | 'missing';
      readonly tools: number;
      /** The tools added, removed and changed against the module on the disk. */
      readonly changes: ContractChanges;
    };

/** What to generate from, and where to. */
export interface GenerateOptions {
  /** TypeScript files that declare tools, or (with `project`) one tsconfig.json. */
  readonly inputs: readonly string[];
  readonly project: boolean;
  /** The generated module's path. */
  readonly output: string;
  /** Write nothing; say whether the module on the disk is up to date. */
  readonly check: boolean;
  /** What relative inputs are read against. */
  readonly cwd: string;
}

/**
 * Extracts the contracts of the type-first tools in `inputs` and writes their module to `output`
 * (only when its text changes), or with `check` writes nothing and compares it with the module there.
 *
 * @example
 * const outcome = generateContracts({ inputs: ['tools.ts'], project: false, output, check: true, cwd });
 * if (outcome.status === 'stale') console.log(outcome.changes.changed);
 */
export function generateContracts(options: GenerateOptions): GenerateOutcome {
  const { inputs, project, output, check, cwd } = options;
  const result = extractContracts({
    ...(project ? { project: inputs[0]! } : { files: inputs }),
    output,
    cwd,
  });
  if (!result.ok) return { status: 'failed', diagnostics: result.diagnostics };
  const tools = Object.keys(result.contracts.tools).length;
  if (tools === 0) return { status: 'no_tools' };
  const text = renderModule(result.contracts, result.typesFrom);
  const existing = existsSync(output) ? readFileSync(output, 'utf8') : undefined;
  const changes = compareContracts(
    existing === undefined ? undefined : parseModule(existing),
    result.contracts,
  );
  if (existing === text) return { status: check ? 'up_to_date' : 'unchanged', tools, changes };
  if (check) return { status: existing === undefined ? 'missing' : 'stale', tools, changes };
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, text);
  return { status: 'written', tools, changes };
}
