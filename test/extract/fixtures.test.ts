import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { extractContracts, renderModule } from '../../src/extract/index.js';
import { isErrorType, Registry } from '../../src/index.js';
import type { GeneratedContracts } from '../../src/typed/index.js';
import { FIXTURES_DIR, fixtureNames, GENERATED, loadWithTsx, mutate, toolsIn } from './support.js';

interface Mutation {
  readonly at: (string | number)[];
  readonly value?: unknown;
  readonly delete?: boolean;
  readonly path: string;
  readonly code: string;
}
interface Case {
  readonly valid: Record<string, unknown>;
  readonly result?: unknown;
  readonly mutations: Mutation[];
}

const names = fixtureNames();
let contracts: GeneratedContracts;
let module: string;

beforeAll(() => {
  const result = extractContracts({
    files: names.map((name) => join(FIXTURES_DIR, `${name}.ts`)),
    output: GENERATED,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics, null, 2));
  contracts = result.contracts;
  module = renderModule(result.contracts, result.typesFrom);
});

test('the committed generated module is what the fixtures give (toolpact gen is deterministic)', () => {
  expect(readFileSync(GENERATED, 'utf8')).toBe(module);
  const again = extractContracts({
    files: names.map((name) => join(FIXTURES_DIR, `${name}.ts`)).reverse(),
    output: GENERATED,
  });
  expect(again.ok && renderModule(again.contracts, again.typesFrom)).toBe(module);
});

describe.each(names)('fixture %s', (name) => {
  const cases = JSON.parse(readFileSync(join(FIXTURES_DIR, `${name}.cases.json`), 'utf8')) as Record<
    string,
    Case
  >;

  test('matches its golden contracts', () => {
    const mine = Object.fromEntries(
      Object.entries(contracts.tools).filter(([, entry]) => entry.source === `${name}.ts`),
    );
    const golden = join(FIXTURES_DIR, `${name}.golden.json`);
    if (process.env.UPDATE_GOLDEN) writeFileSync(golden, `${JSON.stringify(mine, null, 2)}\n`);
    expect(mine).toEqual(JSON.parse(readFileSync(golden, 'utf8')));
    expect(Object.keys(mine).sort()).toEqual(Object.keys(cases).sort());
  });

  test('a valid sample runs through the registry, and each mutation fails at its path', async () => {
    const registry = new Registry().register(toolsIn(await loadWithTsx(join(FIXTURES_DIR, `${name}.ts`))));
    for (const [tool, sample] of Object.entries(cases)) {
      const ok = await registry.call(tool, JSON.stringify(sample.valid), { callId: 'call-1' });
      expect(ok, `${tool} valid sample`).toMatchObject({ ok: true });
      if ('result' in sample) expect(ok.ok && ok.result, `${tool} result`).toEqual(sample.result);
      for (const mutation of sample.mutations) {
        const failed = await registry.call(tool, mutate(sample.valid, mutation.at, mutation));
        const label = `${tool} with ${mutation.path} ${mutation.delete ? 'deleted' : `= ${JSON.stringify(mutation.value)}`}`;
        expect(failed.ok, label).toBe(false);
        if (!isErrorType(failed, 'invalid_arguments')) throw new Error(`${label}: ${JSON.stringify(failed)}`);
        expect(
          failed.error.issues.map((issue) => [issue.path, issue.code]),
          label,
        ).toContainEqual([mutation.path, mutation.code]);
      }
    }
  });
});
