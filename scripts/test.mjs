// `npm test`: the type-check and the lint run beside the tests rather than before them (they take about
// 25 s, most of it one core, while the tests' first files wait on processes they start). Vitest's output
// streams as it comes; what the checks printed follows it. The run fails when any of the three fails.
// Arguments go to vitest (`npm test -- --project unit`).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>` with its output kept, resolving its exit code and what it printed. */
function quietly(script) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => resolve({ script, code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), output }));
  });
}

const checks = Promise.all([quietly('typecheck'), quietly('lint')]);
const vitest = await new Promise((resolve) => {
  const child = spawn(
    process.execPath,
    [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  child.on('error', (error) => {
    process.stderr.write(`npm test: vitest did not start: ${error.message}\n`);
    resolve(1);
  });
  child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
});
let failed = vitest !== 0;
for (const { script, code, output } of await checks) {
  if (code === 0) {
    process.stdout.write(`npm run ${script}: passed.\n`);
    continue;
  }
  failed = true;
  process.stdout.write(`\nnpm run ${script} failed (exit ${code}):\n${output}\n`);
}
process.exitCode = failed ? 1 : 0;
