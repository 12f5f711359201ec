import childProcess from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SPAWNING_FUNCTIONS, UNIT_SPAWN_MESSAGE } from './support/unit-rule.js';

// Runs in the unit project, whose setup file is test/support/unit-guard.ts (this file does not import
// it, so it fails if the project lost its setup file): it proves the guard is
// installed there and holds for every spelling of a spawn (a named import, the namespace, require).
describe('the unit project spawns no process', () => {
  it.each(SPAWNING_FUNCTIONS)('child_process.%s throws the rule and names the command', (name) => {
    const start = childProcess[name] as (command: string, ...rest: unknown[]) => unknown;
    expect(() => start(process.execPath, ['--version'])).toThrow(UNIT_SPAWN_MESSAGE);
    expect(() => start(process.execPath, ['--version'])).toThrow(
      `child_process.${name}("${process.execPath}")`,
    );
  });

  it('a named import and require see the same guard', async () => {
    const { spawn } = await import('node:child_process');
    expect(() => spawn('true')).toThrow(UNIT_SPAWN_MESSAGE);
    const { createRequire } = await import('node:module');
    const required = createRequire(import.meta.url)('node:child_process') as typeof childProcess;
    expect(() => required.execFileSync('true')).toThrow(UNIT_SPAWN_MESSAGE);
  });
});
