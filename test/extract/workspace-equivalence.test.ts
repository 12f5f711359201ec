import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWorkspaceTools } from '../../examples/workspace/tools.js';
import { type AnyTool, type JsonSchema, Registry, type ToolContract } from '../../src/index.js';
import { PROVIDER_FORMATS, toProviderTools } from '../../src/schema/index.js';
import { runCli } from '../support/cli.js';
import { loadWithTsx, PROJECT_DIR } from './support.js';

/**
 * "Equivalent" means: the same names, titles, categories, effects and descriptions, the same return
 * descriptions, and the same parameter and result schemas (property names, types, required lists,
 * constraints, defaults, descriptions, enums) once key order is ignored. One difference is accepted:
 * type-first objects are closed (`additionalProperties: false`), where zod's input schemas leave
 * that keyword out; a closed object only refuses fields no tool reads.
 */
function canonical(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(canonical);
  if (schema === null || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema as Record<string, unknown>)
    .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return Object.fromEntries(entries.map(([key, value]) => [key, canonical(value)]));
}

function view(contract: ToolContract) {
  return {
    name: contract.name,
    title: contract.title,
    category: contract.category,
    effects: contract.effects,
    description: contract.description,
    parameters: canonical(contract.parameters),
    returns: {
      description: contract.returns?.description,
      schema: canonical(contract.returns?.schema as JsonSchema),
    },
  };
}

let root: string;
let typed: AnyTool[];
let schemaFirst: AnyTool[];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolpact-typed-ws-'));
  writeFileSync(join(root, 'notes.md'), 'alpha\nbeta\ngamma\n');
  const module = await loadWithTsx(join(PROJECT_DIR, 'examples', 'workspace-typed', 'tools.ts'));
  typed = (module.createTypedWorkspaceTools as (root: string) => AnyTool[])(root);
  schemaFirst = createWorkspaceTools(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('type-first and schema-first definitions of the workspace tools produce equivalent contracts', () => {
  expect(typed.map((tool) => tool.contract.name)).toEqual(schemaFirst.map((tool) => tool.contract.name));
  for (const [index, tool] of typed.entries()) {
    expect(view(tool.contract), tool.contract.name).toEqual(view(schemaFirst[index]!.contract));
  }
  // The accepted difference, stated: type-first parameter objects are closed.
  expect(typed.every((tool) => tool.contract.parameters.additionalProperties === false)).toBe(true);
});

test.each(PROVIDER_FORMATS)('every provider adapter gives both the same %s tools', (format) => {
  const contracts = (tools: AnyTool[]) => tools.map((tool) => tool.contract);
  const left = toProviderTools(contracts(typed), format);
  const right = toProviderTools(contracts(schemaFirst), format);
  expect(canonical(left.tools)).toEqual(canonical(right.tools));
  // Gemini cannot carry additionalProperties, so the accepted difference shows up as its diagnostics.
  const reported = (diagnostics: readonly { code: string; path: string; tool: string; message: string }[]) =>
    diagnostics
      .filter(
        (diagnostic) =>
          !(
            diagnostic.path === '$.parameters' &&
            diagnostic.message.startsWith('"additionalProperties": false')
          ),
      )
      .map((diagnostic) => `${diagnostic.tool} ${diagnostic.code} ${diagnostic.path}`);
  expect(reported(left.diagnostics)).toEqual(reported(right.diagnostics));
});

describe('the type-first workspace tools behave as the schema-first ones', () => {
  const calls: [string, Record<string, unknown>][] = [
    ['read_file', { path: 'notes.md', start_line: 2, line_count: 1 }],
    ['read_file', { path: '../outside.md' }],
    ['read_file', { path: 'notes.md', start_line: 0 }],
    ['list_dir', {}],
    ['grep', { pattern: 'a', max_results: 2 }],
    ['grep', { pattern: '(a+)+', regex: true }],
    ['write_file', { path: 'new/file.txt', content: 'hello' }],
  ];

  test.each(calls)('%s %j', async (name, args) => {
    const typedRoot = mkdtempSync(join(tmpdir(), 'toolpact-typed-a-'));
    const schemaRoot = mkdtempSync(join(tmpdir(), 'toolpact-typed-b-'));
    try {
      for (const dir of [typedRoot, schemaRoot]) writeFileSync(join(dir, 'notes.md'), 'alpha\nbeta\ngamma\n');
      const module = await loadWithTsx(join(PROJECT_DIR, 'examples', 'workspace-typed', 'tools.ts'));
      const a = new Registry().register(
        (module.createTypedWorkspaceTools as (root: string) => AnyTool[])(typedRoot),
      );
      const b = new Registry().register(createWorkspaceTools(schemaRoot));
      const [left, right] = [await a.call(name, args), await b.call(name, args)];
      expect(left).toEqual(right);
      if (name === 'write_file') {
        expect(readFileSync(join(typedRoot, 'new', 'file.txt'), 'utf8')).toBe('hello');
      }
    } finally {
      rmSync(typedRoot, { recursive: true, force: true });
      rmSync(schemaRoot, { recursive: true, force: true });
    }
  });
});

test('the committed contracts of the example are up to date', async () => {
  const result = await runCli(['gen', 'examples/workspace-typed/tools.ts', '--check'], { cwd: PROJECT_DIR });
  expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('up to date (4 tools)') });
});
