import { describe, expect, it } from 'vitest';
import { createTool, Registry } from '../../src/index.js';
import {
  MCP_JSON_SCHEMA_DIALECT,
  mcpAnnotations,
  toMcpCallResult,
  toMcpTool,
  toProviderTools,
} from '../../src/schema/index.js';
import { FIXTURES } from './fixtures.js';
import { mcpDefinition } from './mcp-wire.js';

describe('MCP adapter', () => {
  it('every fixture is a valid MCP Tool and the list a valid ListToolsResult', () => {
    const contracts = FIXTURES.map((fixture) => fixture.tool.contract);
    const { tools, diagnostics } = toProviderTools(contracts, 'mcp');
    const tool = mcpDefinition('Tool');
    for (const entry of tools) {
      expect(tool(entry), `${entry.name}: ${JSON.stringify(tool.errors)}`).toBe(true);
      // 2025-11-25 reads a schema without `$schema` as draft 2020-12 (SEP-1613).
      expect(entry.inputSchema).not.toHaveProperty('$schema');
    }
    expect(mcpDefinition('ListToolsResult')({ tools })).toBe(true);
    expect(diagnostics.filter((entry) => entry.severity === 'error')).toEqual([]);
  });

  it('maps effects to annotations, destructive only when not read-only', () => {
    const base = { description: 'Delete a file.', parameters: { type: 'object' } } as const;
    const remove = createTool(
      { ...base, name: 'remove_file', category: 'write', effects: { destructive: true } },
      { execute: () => null },
    );
    const odd = createTool(
      { ...base, name: 'peek', category: 'read', effects: { destructive: true } },
      { execute: () => null },
    );
    // Only the hints that differ from the spec's defaults (readOnly false, destructive true,
    // idempotent false, openWorld true) are sent.
    expect(toMcpTool(remove.contract).annotations).toEqual({ openWorldHint: false });
    expect(toMcpTool(odd.contract).annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
  });

  it('sends only the hints a client would otherwise read wrong, and they read back as the same effects', () => {
    const effects = [true, false].flatMap((readOnly) =>
      [true, false].flatMap((destructive) =>
        [true, false].flatMap((idempotent) =>
          [true, false].map((openWorld) => ({ readOnly, destructive, idempotent, openWorld })),
        ),
      ),
    );
    for (const effect of effects) {
      const annotations = mcpAnnotations(effect);
      for (const [hint, value] of Object.entries(annotations)) {
        expect(value, hint).toBe(
          { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }[hint],
        );
      }
      // What a client reads, with the spec's defaults for what is left out.
      const readOnly = annotations.readOnlyHint ?? false;
      expect(readOnly).toBe(effect.readOnly);
      expect(annotations.openWorldHint ?? true).toBe(effect.openWorld);
      if (!readOnly) {
        expect(annotations.destructiveHint ?? true).toBe(effect.destructive);
        expect(annotations.idempotentHint ?? false).toBe(effect.idempotent);
      } else {
        expect(annotations).not.toHaveProperty('destructiveHint');
        expect(annotations).not.toHaveProperty('idempotentHint');
      }
    }
    const open = createTool(
      { name: 'run', description: 'Run a command.', category: 'execute', parameters: { type: 'object' } },
      { execute: () => null },
    );
    expect(toMcpTool(open.contract)).not.toHaveProperty('annotations');
  });

  it('states the dialect only when asked, in inputSchema and outputSchema alike', () => {
    const count = createTool(
      {
        name: 'count_lines',
        description: 'Count lines.',
        category: 'read',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        returns: { schema: { type: 'object', properties: { lines: { type: 'integer' } } } },
      },
      { execute: () => ({ lines: 1 }) },
    );
    const plain = toMcpTool(count.contract);
    expect(plain.inputSchema).not.toHaveProperty('$schema');
    expect(plain.outputSchema).not.toHaveProperty('$schema');
    const stated = toMcpTool(count.contract, { dialect: true });
    expect(stated.inputSchema.$schema).toBe(MCP_JSON_SCHEMA_DIALECT);
    expect(stated.outputSchema?.$schema).toBe(MCP_JSON_SCHEMA_DIALECT);
    expect(mcpDefinition('Tool')(stated)).toBe(true);
  });

  it('wraps a non-object return schema as { result } and shapes structuredContent the same way', async () => {
    const count = createTool(
      {
        name: 'count_lines',
        description: 'Count lines.',
        category: 'read',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        returns: { schema: { type: 'integer' } },
      },
      { execute: ({ text }: { text: string }) => text.split('\n').length },
    );
    const { tools, diagnostics } = toProviderTools([count.contract], 'mcp');
    expect(tools[0]!.outputSchema).toMatchObject({
      type: 'object',
      properties: { result: { type: 'integer' } },
    });
    expect(diagnostics.map((entry) => entry.code)).toEqual(['keyword_rewritten']);
    const registry = new Registry().register(count);
    const result = toMcpCallResult(await registry.call('count_lines', { text: 'a\nb' }), count.contract);
    expect(result.structuredContent).toEqual({ result: 2 });
    expect(mcpDefinition('CallToolResult')(result)).toBe(true);
  });

  it('renders failures as isError results with the envelope as text', async () => {
    const fixture = FIXTURES.find((entry) => entry.id === 'nested_objects')!;
    const registry = new Registry().register(fixture.tool);
    const envelope = await registry.call('nested_objects', { user: {} });
    const result = toMcpCallResult(envelope, fixture.tool.contract);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.parse(result.content[0]!.text)).toEqual(envelope);
    expect(mcpDefinition('CallToolResult')(result)).toBe(true);
  });

  it('omits outputSchema when asked to, and reports a $ref that leaves the schema', () => {
    const fixture = FIXTURES.find((entry) => entry.id === 'returns_and_examples')!;
    expect(toMcpTool(fixture.tool.contract, { returns: 'omit' }).outputSchema).toBeUndefined();
    const contract = {
      ...fixture.tool.contract,
      parameters: { type: 'object', properties: { a: { $ref: 'https://example.org/a.json' } } },
    };
    const { diagnostics } = toProviderTools([contract], 'mcp');
    expect(diagnostics.map((entry) => [entry.code, entry.path])).toContainEqual([
      'unresolved_ref',
      '$.parameters.properties.a.$ref',
    ]);
  });
});
