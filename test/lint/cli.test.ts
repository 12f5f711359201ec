import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const srcIndex = pathToFileURL(join(root, 'src', 'index.ts')).href;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-lint-'));
  const module = (tools: string) =>
    `import { createTool } from ${JSON.stringify(srcIndex)};\n` +
    `const make = (name, description, category = 'read', parameters = { type: 'object', properties: {} }) =>\n` +
    `  createTool({ name, description, category, parameters }, { execute: () => null });\n` +
    `export default [${tools}];\n`;
  const good = [
    'Read the full text of one UTF-8 file in the workspace.',
    'Use it to look at a file whose path you know.',
    'Do not use it for binary files.',
  ].join(' ');
  writeFileSync(join(dir, 'clean.ts'), module(`make('read_file', ${JSON.stringify(good)})`));
  writeFileSync(
    join(dir, 'vague.ts'),
    module(
      `make('read_file', 'Reads a file.', 'read', { type: 'object', properties: { path: { type: 'string' } } })`,
    ),
  );
  writeFileSync(
    join(dir, 'broken.ts'),
    module(
      `make('cleanup', 'Deletes temporary files. Use it after a build; call purge_cache first. Do not use it on sources.')`,
    ),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('toolpact lint', () => {
  it('exits 0 on a clean module and says so', async () => {
    const { code, stdout } = await runCli(['lint', 'clean.ts'], { cwd: dir });
    expect(code).toBe(0);
    expect(stdout).toContain('✔ 1 tool, no problems');
  });

  it('exits 0 with warnings, and 1 when they pass --max-warnings', async () => {
    const warned = await runCli(['lint', 'vague.ts'], { cwd: dir });
    expect(warned.code).toBe(0);
    expect(warned.stdout).toMatch(/^vague\.ts\n {2}read_file\n {4}\$\.description +warning +The /);
    expect(warned.stdout).toContain(
      'The first sentence of "read_file" ("Reads a file.") only restates the name.',
    );
    expect(warned.stdout).toContain('(0 errors, 4 warnings, 0 info) in 1 tool');
    const over = await runCli(['lint', 'vague.ts', '--max-warnings', '3'], { cwd: dir });
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('4 warnings, more than --max-warnings 3');
    expect((await runCli(['lint', 'vague.ts', '--max-warnings', '4'], { cwd: dir })).code).toBe(0);
  });

  it('exits 1 on error-level findings; json lists them with their docs', async () => {
    const { code, stdout } = await runCli(['lint', 'broken.ts', '--format', 'json'], { cwd: dir });
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      errorCount: number;
      findings: { rule: string; docs: string; severity: string }[];
    };
    expect(report.errorCount).toBe(2);
    expect(
      report.findings
        .filter((finding) => finding.severity === 'error')
        .map((finding) => finding.rule)
        .sort(),
    ).toEqual(['category-effects-agree', 'no-unknown-tool-reference']);
    expect(report.findings[0]!.docs).toMatch(/^https:\/\/.+\/docs\/rules\/[a-z-]+\.md$/);
  });

  it('--preset strict turns the parameter checklist into errors', async () => {
    const { code, stdout } = await runCli(['lint', 'vague.ts', '--preset', 'strict', '--format', 'json'], {
      cwd: dir,
    });
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { findings: { rule: string; severity: string }[] };
    expect(
      report.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.rule),
    ).toEqual(['parameter-semantics']);
  });

  it('reads severities from toolpact.config.json', async () => {
    const configured = mkdtempSync(join(tmpdir(), 'toolpact-lint-config-'));
    try {
      writeFileSync(
        join(configured, 'vague.ts'),
        `export { default } from ${JSON.stringify(pathToFileURL(join(dir, 'vague.ts')).href)};\n`,
      );
      writeFileSync(
        join(configured, 'toolpact.config.json'),
        JSON.stringify({ lint: { rules: { 'description-purpose': 'error' } } }),
      );
      const { code, stdout } = await runCli(['lint', 'vague.ts', '--format', 'json'], { cwd: configured });
      expect(code).toBe(1);
      expect((JSON.parse(stdout) as { errorCount: number }).errorCount).toBe(1);
      writeFileSync(
        join(configured, 'toolpact.config.json'),
        JSON.stringify({ lint: { rules: { 'description-purpse': 'error' } } }),
      );
      const bad = await runCli(['lint', 'vague.ts'], { cwd: configured });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        'toolpact.config.json (lint): there is no lint rule "description-purpse"; did you mean "description-purpose"',
      );
    } finally {
      rmSync(configured, { recursive: true, force: true });
    }
  });

  it.each([
    [['lint'], 'Give a module of tools.'],
    [['lint', 'clean.ts', '--format', 'xml'], '--format must be stylish, json or sarif, received "xml"'],
    [['lint', 'clean.ts', '--max-warnings', 'many'], '--max-warnings needs a whole number'],
    [['lint', 'missing.ts'], 'Cannot find the module "missing.ts"'],
  ])('exits 2 on a usage error: %j', async (argv, message) => {
    const { code, stderr } = await runCli(argv, { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('writes SARIF 2.1.0 that validates against the official schema', async () => {
    const { code, stdout } = await runCli(['lint', 'broken.ts', '--format', 'sarif'], { cwd: dir });
    expect(code).toBe(1);
    const log = JSON.parse(stdout) as {
      version: string;
      runs: {
        tool: { driver: { rules: { id: string; helpUri: string }[] } };
        results: { ruleId: string; level: string }[];
      }[];
    };
    const validate = sarifValidator();
    const valid = validate(log);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const run = log.runs[0]!;
    expect(run.results.map((result) => result.level)).toContain('error');
    for (const result of run.results)
      expect(run.tool.driver.rules.map((rule) => rule.id)).toContain(result.ruleId);
    // A broken log must fail the same validator, or the check above proves nothing.
    expect(validate({ ...log, version: '2.0.0' })).toBe(false);
    expect(validate({ ...log, runs: [{ ...run, results: [{ ...run.results[0], level: 'fatal' }] }] })).toBe(
      false,
    );
  });
});

/** The SARIF 2.1.0 schema (draft-04) that @microsoft/jest-sarif ships, compiled with the ajv 6 it ships with. */
function sarifValidator(): ((data: unknown) => boolean) & { errors?: unknown[] | null } {
  const packageRequire = createRequire(
    createRequire(import.meta.url).resolve('@microsoft/jest-sarif/package.json'),
  );
  const Ajv = packageRequire('ajv') as new (
    options: object,
  ) => {
    addMetaSchema(schema: object): void;
    compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown[] | null };
  };
  const ajv = new Ajv({ schemaId: 'auto', allErrors: true });
  ajv.addMetaSchema(packageRequire('ajv/lib/refs/json-schema-draft-04.json') as object);
  return ajv.compile(packageRequire('./lib/schemas/sarif-2.1.0-rtm.5.json') as object);
}
