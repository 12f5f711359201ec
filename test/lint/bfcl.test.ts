import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lint, resolveLintConfig } from '../../src/lint/index.js';
import { BFCL_DIR, bfclTool, convertBfclFunction, loadBfcl } from '../support/bfcl.js';

// BFCL has no categories: its tools are built as read tools, and the rules that read the category are off.
const config = resolveLintConfig({
  rules: { 'category-effects-agree': 'off', 'side-effects-stated': 'off' },
});

describe('the BFCL corpus under recommended', () => {
  it('lints every question without a crash, and its only errors are credentials asked of the model', () => {
    const errors: string[] = [];
    let findings = 0;
    for (const entry of loadBfcl()) {
      const result = lint(entry.functions.map(bfclTool), { config });
      findings += result.findings.length;
      for (const finding of result.findings)
        if (finding.severity === 'error') errors.push(`${entry.id} ${finding.rule}`);
    }
    expect(findings).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it('finds the credentials in the multi-turn API docs, and nothing else at error level', () => {
    const errors: string[] = [];
    const docs = join(BFCL_DIR, 'multi_turn_func_doc');
    for (const file of readdirSync(docs).sort()) {
      const tools = readFileSync(join(docs, file), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) =>
          bfclTool(convertBfclFunction(JSON.parse(line) as Parameters<typeof convertBfclFunction>[0])),
        );
      for (const finding of lint(tools, { config }).findings) {
        if (finding.severity === 'error')
          errors.push(`${finding.rule} ${finding.tool} ${finding.path.split('.').pop()}`);
      }
    }
    expect(new Set(errors.map((error) => error.split(' ')[0]))).toEqual(
      new Set(['no-credential-parameters']),
    );
    expect(errors).toContain('no-credential-parameters authenticate_twitter password');
    expect(errors).toContain('no-credential-parameters book_flight access_token');
    expect(errors).toHaveLength(13);
  });
});
