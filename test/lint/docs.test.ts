import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULE_DOCS_BASE, RULES } from '../../src/lint/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The rule list comes from the folder, not from a list kept by hand.
const ruleFiles = readdirSync(join(root, 'src', 'lint', 'rules'))
  .filter((file) => file.endsWith('.ts') && file !== 'index.ts')
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

describe('every rule file is a rule with docs that match its meta', () => {
  it('RULES holds exactly one rule per file of src/lint/rules, named after the file', () => {
    expect(Object.keys(RULES).sort()).toEqual(ruleFiles);
  });

  for (const name of ruleFiles) {
    it(`${name}: docs/rules/${name}.md exists and repeats the meta`, () => {
      const rule = RULES[name]!;
      expect(rule.meta.docs).toBe(`${RULE_DOCS_BASE}${name}.md`);
      const file = join(root, 'docs', 'rules', `${name}.md`);
      expect(existsSync(file)).toBe(true);
      const [title, blank, description] = readFileSync(file, 'utf8').split('\n');
      expect([title, blank, description]).toEqual([`# ${name}`, '', rule.meta.description]);
      const text = readFileSync(file, 'utf8');
      for (const id of Object.keys(rule.meta.messages)) expect(text).toContain(`\`${id}\``);
      const options = Object.keys((rule.meta.schema as { properties?: object }).properties ?? {});
      for (const option of options) expect(text).toContain(`| \`${option}\` |`);
      for (const option of Object.keys(rule.meta.defaultOptions as object)) expect(options).toContain(option);
    });
  }

  it('docs/rules holds no page for a rule that does not exist', () => {
    const pages = readdirSync(join(root, 'docs', 'rules'))
      .map((file) => file.replace(/\.md$/, ''))
      .sort();
    expect(pages).toEqual(ruleFiles);
  });
});
