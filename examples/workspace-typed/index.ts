import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from '../../src/index.js';
import { createTypedWorkspaceTools } from './tools.js';

/**
 * The type-first workspace tool set. The workspace root is `$TOOLPACT_WORKSPACE`, or the bundled
 * `sample/` folder of the schema-first example.
 */
export const workspaceRoot =
  process.env.TOOLPACT_WORKSPACE ??
  join(dirname(fileURLToPath(import.meta.url)), '..', 'workspace', 'sample');

export { createTypedWorkspaceTools };

export default new Registry().register(createTypedWorkspaceTools(workspaceRoot));
