/**
 * `npx tsx bench/lint-bfcl.ts [seed]`: lints the BFCL corpus (test/corpora/bfcl) and prints the
 * count of findings per rule, under `recommended` and under `strict`, then draws 20 error-level findings
 * at random (a fixed seed, so the draw can be repeated) with what is needed to judge each by hand.
 *
 * Each BFCL question's functions are one tool set, as the model saw them; each multi-turn API doc
 * (`multi_turn_func_doc/*.json`) is one set too. BFCL has no categories, so every tool is built as a
 * `read` tool, and the two rules that read the category (category-effects-agree, side-effects-stated)
 * are switched off: their findings would be about our labelling, not about BFCL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyTool } from '../src/index.js';
import { type LintFinding, lint, resolveLintConfig } from '../src/lint/index.js';
import { BFCL_DIR, bfclTool, convertBfclFunction, loadBfcl } from '../test/support/bfcl.js';

const seed = Number(process.argv[2] ?? 20261202);
const OFF = { 'category-effects-agree': 'off', 'side-effects-stated': 'off' } as const;

const sets: { id: string; tools: AnyTool[] }[] = loadBfcl().map((entry) => ({
  id: entry.id,
  tools: entry.functions.map(bfclTool),
}));
const docs = join(BFCL_DIR, 'multi_turn_func_doc');
for (const file of readdirSync(docs).sort()) {
  const functions = readFileSync(join(docs, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => convertBfclFunction(JSON.parse(line) as Parameters<typeof convertBfclFunction>[0]));
  sets.push({ id: `multi_turn:${file.replace(/\.json$/, '')}`, tools: functions.map(bfclTool) });
}

const out = (line = '') => process.stdout.write(`${line}\n`);
const errors: { id: string; finding: LintFinding; tool: AnyTool | undefined }[] = [];
for (const preset of ['recommended', 'strict'] as const) {
  const config = resolveLintConfig({ extends: preset, rules: OFF });
  const counts = new Map<string, { error: number; warning: number; info: number }>();
  let tools = 0;
  for (const set of sets) {
    tools += set.tools.length;
    for (const finding of lint(set.tools, { config }).findings) {
      const count = counts.get(finding.rule) ?? { error: 0, warning: 0, info: 0 };
      count[finding.severity]++;
      counts.set(finding.rule, count);
      if (preset === 'strict' && finding.severity === 'error') {
        errors.push({
          id: set.id,
          finding,
          tool: set.tools.find((tool) => tool.contract.name === finding.tool),
        });
      }
    }
  }
  out(`== ${preset}: ${sets.length} sets, ${tools} tools ==`);
  out(`${'rule'.padEnd(30)} ${'error'.padStart(6)} ${'warning'.padStart(8)} ${'info'.padStart(5)}`);
  for (const [rule, count] of [...counts].sort()) {
    out(
      `${rule.padEnd(30)} ${String(count.error).padStart(6)} ${String(count.warning).padStart(8)} ${String(count.info).padStart(5)}`,
    );
  }
  out();
}

// mulberry32: a small seeded generator, so the same seed draws the same findings.
let state = seed >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const draw = (title: string, candidates: typeof errors) => {
  const pool = [...candidates];
  const drawn = [];
  while (drawn.length < 20 && pool.length > 0)
    drawn.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  out(`== ${title}: 20 of ${candidates.length}, seed ${seed} ==`);
  drawn.forEach(({ id, finding, tool }, index) => {
    out(
      `#${index + 1} ${id} ${finding.tool ?? '(set)'} ${finding.rule}/${finding.messageId} at ${finding.path}`,
    );
    out(`   message:     ${finding.message}`);
    if (tool) out(`   description: ${tool.contract.description.slice(0, 300)}`);
    const match = /^\$\.parameters\.(.+)$/.exec(finding.path);
    if (tool && match) {
      let node: unknown = tool.contract.parameters;
      for (const key of match[1]!.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
      out(`   parameter:   ${JSON.stringify(node).slice(0, 300)}`);
    }
  });
  out();
};
draw('error-level findings under strict', errors);
// Dotted names are most of the pool and true by construction (OpenAI and Anthropic refuse them as they
// are); the second draw leaves them out, so the wording rules are judged too.
draw(
  'error-level findings under strict, name-portable left out',
  errors.filter(({ finding }) => finding.rule !== 'name-portable'),
);
