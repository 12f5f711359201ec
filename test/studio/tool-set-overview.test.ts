import { describe, expect, test } from 'vitest';
import { createTool, Registry } from '../../src/index.js';
import { tokenReport } from '../../src/schema/index.js';
import { SEARCH_TOOL_NAME, withToolSearch } from '../../src/search/index.js';
import { toolSetOverview } from '../../src/studio/tool-set-overview.js';

// What `toolpact inspect` shows of a tool set, computed without the CLI: rows, search cost, refusals, lint.

const GOOD =
  'Read the full text of one UTF-8 file in the workspace. Use it to look at a file whose path you know. Do not use it for binary files.';

function tools() {
  return [
    createTool(
      {
        name: 'read_file',
        description: GOOD,
        category: 'read',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', description: 'File path relative to the workspace root.' } },
          required: ['path'],
        },
      },
      { execute: () => null },
    ),
    createTool(
      {
        name: 'tag_items',
        description: GOOD.replace('Read', 'Tag'),
        category: 'write',
        parameters: {
          type: 'object',
          properties: { 'tag name': { type: 'string', description: 'The tag, e.g. "urgent".' } },
        },
      },
      { execute: () => null },
    ),
  ];
}

const FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;

describe('toolSetOverview', () => {
  test('one row per tool with its category defaults, parameters and the tokens of its definition in each format', () => {
    const registry = new Registry().register(tools());
    const overview = toolSetOverview(registry, []);
    expect(overview.tools.map(({ tokens: _tokens, ...row }) => row)).toEqual([
      { name: 'read_file', category: 'read', risk: 'low', permission: 'allow', parameters: ['path'] },
      { name: 'tag_items', category: 'write', risk: 'medium', permission: 'ask', parameters: ['tag name?'] },
    ]);
    const contracts = registry.schemas();
    for (const format of FORMATS) {
      contracts.forEach((contract, index) => {
        expect(overview.tools[index]!.tokens[format]).toBe(
          tokenReport([contract], format).perTool[0]!.tokens,
        );
      });
      expect(overview.totals[format]).toBe(tokenReport(contracts, format).total);
    }
  });

  test('the search cost is measured on a copy: the always-loaded tools and search_tools against every tool', () => {
    const registry = new Registry().register(tools());
    const overview = toolSetOverview(registry, ['read_file']);
    expect(registry.has(SEARCH_TOOL_NAME)).toBe(false);
    expect(overview.search?.alwaysLoaded).toEqual(['read_file']);
    expect(overview.search?.sent).toBe(2);
    const searching = withToolSearch(registry.subset(['read_file', 'tag_items']), {
      alwaysLoaded: ['read_file'],
    });
    const sent = searching.schemas();
    searching.close();
    expect(sent.map((contract) => contract.name).sort()).toEqual(['read_file', SEARCH_TOOL_NAME]);
    for (const format of FORMATS) {
      expect(overview.search?.tokens[format]).toEqual({
        all: overview.totals[format],
        withSearch: tokenReport(sent, format).total,
      });
    }
    // A set that searches already has no cost to compare.
    const searched = withToolSearch(new Registry().register(tools()));
    expect(toolSetOverview(searched.registry, []).search).toBeUndefined();
    searched.close();
  });

  test('a property name Gemini refuses is a refusal of that format and tool, and a lint error', () => {
    const overview = toolSetOverview(new Registry().register(tools()), []);
    expect(overview.refusals).toEqual([
      expect.objectContaining({
        format: 'gemini',
        tool: 'tag_items',
        path: '$.parameters.properties["tag name"]',
        code: 'invalid_property_name',
      }),
    ]);
    expect(overview.lint.errorCount).toBe(1);
    expect(
      overview.lint.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.rule),
    ).toEqual(['provider-compatibility']);
  });
});
