import { z } from 'zod';
import { defineTool } from '../../src/index.js';

/** A write tool that production deploys go through, for the sign-in tests' asks and approvals. */
export const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service to production. Changes what users see; not read-only.',
  category: 'write',
  input: z.object({ service: z.string().describe('The service to deploy, e.g. api.') }),
  execute: ({ service }) => ({ deployed: service }),
});
