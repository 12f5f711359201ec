// The rule of the `unit` project, shared by its setup file (unit-guard.ts) and the test that proves it.

/** What a unit test that starts a process is told. */
export const UNIT_SPAWN_MESSAGE =
  'unit tests spawn no process: move this file to the system project (the `system` list in vitest.config.ts)';

/** The functions of `node:child_process` that start a process. */
export const SPAWNING_FUNCTIONS = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;
