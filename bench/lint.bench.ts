/**
 * Lint of 1,000 tools in one set (the goal is under a second): every distinct function of the BFCL
 * corpus (the four categories and the multi-turn API docs), topped up to 1,000 with renamed copies
 * (which the near-duplicate rule then has to find), as one registry would hold them. Compared with building the rules' text views alone,
 * and each rule run alone, so the quadratic set-wide rules show up as ratios.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyTool } from '../src/index.js';
import { lint, RULES, resolveLintConfig, toolView } from '../src/lint/index.js';
import { BFCL_DIR, bfclTool, convertBfclFunction, loadBfcl } from '../test/support/bfcl.js';
import { measure, printTable } from './measure.js';

export default async function run(): Promise<void> {
  const seen = new Set<string>();
  const tools: AnyTool[] = [];
  const add = (fn: ReturnType<typeof convertBfclFunction>) => {
    if (seen.has(fn.name) || tools.length >= 1000) return;
    seen.add(fn.name);
    tools.push(bfclTool(fn));
  };
  for (const entry of loadBfcl()) for (const fn of entry.functions) add(fn);
  const docs = join(BFCL_DIR, 'multi_turn_func_doc');
  for (const file of readdirSync(docs).sort()) {
    for (const line of readFileSync(join(docs, file), 'utf8').split('\n')) {
      if (line.trim())
        add(convertBfclFunction(JSON.parse(line) as Parameters<typeof convertBfclFunction>[0]));
    }
  }
  const distinct = tools.length;
  for (let index = 0; tools.length < 1000; index++) {
    const original = tools[index]!.contract;
    add({
      ...convertBfclFunction({
        name: `${original.name}_copy`,
        description: original.description,
        parameters: {},
      }),
      parameters: original.parameters,
    });
  }
  const options = { iterations: 1, rounds: 7, warmup: 2 };
  const recommended = resolveLintConfig();
  const strict = resolveLintConfig({ extends: 'strict' });
  const views = await measure(
    `text views of ${tools.length} tools`,
    () => tools.map((tool) => toolView(tool.contract)),
    options,
  );
  const whole = await measure(
    `lint ${tools.length} tools (recommended)`,
    () => lint(tools, { config: recommended }),
    options,
  );
  const all = await measure(
    `lint ${tools.length} tools (strict, all rules)`,
    () => lint(tools, { config: strict }),
    options,
  );
  const perRule = [];
  for (const name of Object.keys(RULES).sort()) {
    const only = resolveLintConfig({
      rules: Object.fromEntries(Object.keys(RULES).map((rule) => [rule, rule === name ? 'error' : 'off'])),
    });
    perRule.push(await measure(`  only ${name}`, () => lint(tools, { config: only }), options));
  }
  printTable([whole, all, views, ...perRule], whole);
  // CPU time (user + system) of one run, median of 7: steadier than wall time on a shared, loaded machine.
  const cpu: number[] = [];
  for (let round = 0; round < 7; round++) {
    const started = process.cpuUsage();
    lint(tools, { config: recommended });
    const used = process.cpuUsage(started);
    cpu.push((used.user + used.system) / 1000);
  }
  cpu.sort((a, b) => a - b);
  process.stdout.write(
    `CPU time of one recommended run: median ${cpu[3]!.toFixed(0)} ms (min ${cpu[0]!.toFixed(0)}, max ${cpu[6]!.toFixed(0)})\n`,
  );
  const findings = lint(tools, { config: recommended }).findings.length;
  process.stdout.write(
    `${tools.length} tools (${distinct} distinct), ${findings} findings (recommended); ${(whole.nsPerOp / 1e6).toFixed(0)} ms per run, ${(whole.nsPerOp / 1e3 / tools.length).toFixed(0)} µs per tool\n`,
  );
}
