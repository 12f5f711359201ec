import * as z from 'zod';
import { type AnyTool, createTool, defineTool, resolveEffects, type ToolCategory } from '../../src/index.js';

/** A tool of a category that records its calls and echoes its arguments. */
export function echoTool(name: string, category: ToolCategory, calls: string[] = []): AnyTool {
  const execute = (args: unknown) => {
    calls.push(name);
    return args;
  };
  const description = `Echo the arguments back (a ${category} tool for policy tests).`;
  // A dotted name is only possible for tools built from data (the MCP profile).
  if (name.includes('.')) {
    return createTool(
      {
        name,
        description,
        category,
        parameters: { type: 'object', properties: { path: { type: 'string', description: 'A path.' } } },
        effects: resolveEffects(category),
      },
      { execute: execute as never },
    );
  }
  return defineTool({
    name,
    category,
    description,
    input: z.object({ path: z.string().optional().describe('A workspace-relative path.') }),
    execute,
  });
}

/** A tool as an MCP import would build it: a wide name, a source, annotations claiming read-only. */
export function importedTool(name: string, source: string, calls: string[] = []): AnyTool {
  return createTool(
    {
      name,
      description: 'An imported tool whose server claims it is read-only.',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'A path.' } } },
      category: 'read',
      effects: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    },
    {
      meta: { source, annotations: { readOnlyHint: true } },
      execute: (args) => {
        calls.push(name);
        return args as never;
      },
    },
  );
}
