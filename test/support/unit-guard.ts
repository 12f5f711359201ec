// Setup file of the `unit` project (vitest.config.ts): a unit test spawns no process. Every way
// `node:child_process` starts one is replaced by a function that throws, so a file that starts a
// server, a CLI or a sandbox fails at once with the rule and the way out instead of quietly making
// the inner loop slow. `syncBuiltinESMExports` carries the replacement to `import { spawn } from
// 'node:child_process'` as well as to `require`, so the source under test is held to it too.
import { createRequire, syncBuiltinESMExports } from 'node:module';

import { SPAWNING_FUNCTIONS, UNIT_SPAWN_MESSAGE } from './unit-rule.js';

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
for (const name of SPAWNING_FUNCTIONS) {
  childProcess[name] = (command: unknown) => {
    throw new Error(`${UNIT_SPAWN_MESSAGE}; it called child_process.${name}(${JSON.stringify(command)})`);
  };
}
syncBuiltinESMExports();
