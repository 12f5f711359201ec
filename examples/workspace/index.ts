import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from '../../src/index.js';
import { createDelegateTask } from './delegate-task.js';
import { createRunCommand } from './run-command.js';
import { createWorkspaceTools } from './tools.js';

/**
 * The example workspace tool set. The workspace root is `$TOOLPACT_WORKSPACE`, or the bundled
 * `sample/` folder beside this file.
 */
export const workspaceRoot =
  process.env.TOOLPACT_WORKSPACE ?? join(dirname(fileURLToPath(import.meta.url)), 'sample');

export { createDelegateTask, createRunCommand, createWorkspaceTools };

export default new Registry().register(
  ...createWorkspaceTools(workspaceRoot),
  createRunCommand(workspaceRoot),
  createDelegateTask(),
);
