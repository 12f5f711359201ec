/**
 * `npm start`: the main job on the example tools. Prints the contract table, then one call of each
 * kind of outcome with the envelope the model would read.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execute } from '../../src/cli/main.js';
import registry from './index.js';

const here = dirname(fileURLToPath(import.meta.url));
const io = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  interactive: false,
};

process.stdout.write('toolpact: the example workspace tools\n\n');
const code = await execute(['inspect', join(here, 'index.ts')], io);
if (code === 2) process.exit(2);

const calls: { title: string; tool: string; args: string }[] = [
  { title: 'Success', tool: 'read_file', args: '{"path": "docs/guide.md"}' },
  {
    title: 'Invalid arguments (a number where a path belongs, an unknown field)',
    tool: 'read_file',
    args: '{"path": 42, "lines": 3}',
  },
  { title: 'Unknown tool, with the closest names', tool: 'read_files', args: '{"path": "README.md"}' },
  { title: 'Refused path (leaves the workspace)', tool: 'read_file', args: '{"path": "../../package.json"}' },
];
for (const { title, tool, args } of calls) {
  process.stdout.write(
    `\n${title}\n  call:     ${tool} ${args}\n  envelope: ${await registry.dispatch(tool, args)}\n`,
  );
}
