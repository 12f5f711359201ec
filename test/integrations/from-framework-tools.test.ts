import { tool as langChainTool } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { tool as agentsTool } from '@openai/agents';
import { tool as aiSdkTool, jsonSchema } from 'ai';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { fromAiSdkTool } from '../../src/ai-sdk/index.js';
import { type AnyTool, Registry, ToolDefinitionError } from '../../src/index.js';
import type { WrapToolWarning } from '../../src/integrations/foreign-tool.js';
import { fromLangChainTool } from '../../src/langchain/index.js';
import { lint } from '../../src/lint/index.js';
import { createMcpServer } from '../../src/mcp/index.js';
import { fromOpenAIAgentsTool } from '../../src/openai-agents/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';

const FORECASTS: Record<string, string> = { Paris: 'rain', Oslo: 'snow' };

/** One tool of each framework, written the way each framework's docs write them. */
function frameworkTools(warnings: WrapToolWarning[]) {
  const ran: string[] = [];
  const weather = aiSdkTool({
    description:
      'Get the forecast for one city. `city` is an English city name, e.g. "Paris". Use it for weather only; it changes nothing.',
    inputSchema: z.object({ city: z.string().min(2).describe('An English city name, e.g. "Paris"') }),
    execute: async ({ city }) => {
      ran.push(`weather ${city}`);
      return { city, forecast: FORECASTS[city] ?? 'unknown' };
    },
  });
  // No description: LangChain fills in "<name> tool", which counts as missing.
  const search = langChainTool(
    async ({ query }: { query: string }) => {
      ran.push(`search ${query}`);
      return `3 pages mention ${query}`;
    },
    { name: 'search_docs', schema: z.object({ query: z.string().describe('Words to look for') }) },
  );
  const remove = agentsTool({
    name: 'delete_page',
    description: 'Delete one docs page for good. `page` is its slug, e.g. "intro". There is no undo.',
    parameters: z.object({ page: z.string().describe('The page slug, e.g. "intro"') }),
    execute: async ({ page }) => {
      ran.push(`delete ${page}`);
      return `deleted ${page}`;
    },
  });
  const onWarning = (warning: WrapToolWarning) => warnings.push(warning);
  const tools: AnyTool[] = [
    fromAiSdkTool('get_weather', weather, { category: 'read', onWarning }),
    fromLangChainTool(search, { category: 'search', onWarning }),
    fromOpenAIAgentsTool(remove, { category: 'write', onWarning }),
  ];
  return { tools, ran };
}

function setup() {
  const warnings: WrapToolWarning[] = [];
  const { tools, ran } = frameworkTools(warnings);
  const gate = createPolicyGate(
    definePolicy({
      rules: [{ id: 'no-deletes', action: 'deny', tool: 'delete_page', reason: 'pages stay' }],
    }),
  );
  const registry = new Registry({ ...gate.registryOptions }).register(tools);
  return { registry, ran, warnings, tools };
}

describe('framework tools as toolpact tools', () => {
  test('the contracts come from each framework’s own schema; a missing description is defaulted loudly', () => {
    const { registry, warnings } = setup();
    const [weather, search, remove] = registry.schemas();
    expect(weather).toMatchObject({ name: 'get_weather', category: 'read' });
    expect(weather!.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 2 } },
      required: ['city'],
    });
    expect(weather!.parameters).not.toHaveProperty('$schema');
    expect(search).toMatchObject({ name: 'search_docs', category: 'search' });
    expect(search!.parameters).toMatchObject({
      properties: { query: { type: 'string' } },
      required: ['query'],
    });
    // The Agents SDK's strict form of the zod schema, as the SDK sends it.
    expect(remove).toMatchObject({ name: 'delete_page', category: 'write' });
    expect(remove!.parameters).toMatchObject({ required: ['page'], additionalProperties: false });
    expect(registry.get('search_docs')!.meta).toMatchObject({ framework: 'langchain' });

    expect(search!.description).toBe('search_docs (wrapped from LangChain without a description).');
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'description_defaulted', tool: 'search_docs', framework: 'langchain' }),
    ]);
    expect(warnings[0]!.message).toContain('Pass { description }');
  });

  test('lint reads them like any tool, and flags the defaulted description', () => {
    const { registry } = setup();
    const result = lint(registry);
    expect(result.toolCount).toBe(3);
    const onSearch = result.findings
      .filter((finding) => finding.tool === 'search_docs')
      .map((finding) => finding.rule);
    expect(onSearch).toContain('description-usage');
    const strict = lint(registry, { config: { extends: 'strict' } });
    expect(
      strict.findings.filter((finding) => finding.tool === 'search_docs').map((finding) => finding.rule),
    ).toContain('description-min-sentences');
  });

  test('calls go through validation and the gate before the framework code runs', async () => {
    const { registry, ran } = setup();
    expect(await registry.call('get_weather', { city: 'Paris' }, { callId: 'a1' })).toEqual({
      ok: true,
      result: { city: 'Paris', forecast: 'rain' },
    });
    expect(await registry.call('search_docs', '{"query":"strict mode"}')).toEqual({
      ok: true,
      result: '3 pages mention strict mode',
    });
    const invalid = await registry.call('get_weather', { town: 'Paris' });
    expect(invalid).toMatchObject({ ok: false, error: { type: 'invalid_arguments' } });
    // The JSON Schema carries minLength, so toolpact refuses before the AI SDK's zod does.
    expect(await registry.call('get_weather', { city: 'P' })).toMatchObject({
      ok: false,
      error: { type: 'invalid_arguments' },
    });
    const denied = await registry.call('delete_page', { page: 'intro' });
    expect(denied).toMatchObject({ ok: false, error: { type: 'permission_denied', rule: 'no-deletes' } });
    expect(ran).toEqual(['weather Paris', 'search strict mode']);
  });

  test('served over MCP, a real client lists and calls them under the same gate', async () => {
    const { registry, ran } = setup();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(registry).connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((entry) => entry.name)).toEqual(['get_weather', 'search_docs', 'delete_page']);
      expect(listed.tools[0]!.annotations).toMatchObject({ readOnlyHint: true });
      const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
      expect(weather.isError).not.toBe(true);
      expect(
        weather.structuredContent ?? JSON.parse((weather.content as { text: string }[])[0]!.text),
      ).toMatchObject({
        city: 'Oslo',
        forecast: 'snow',
      });
      const denied = await client.callTool({ name: 'delete_page', arguments: { page: 'intro' } });
      expect(denied.isError).toBe(true);
      expect((denied.content as { text: string }[])[0]!.text).toContain('permission_denied');
      expect(ran).toEqual(['weather Oslo']);
    } finally {
      await client.close();
    }
  });

  test('a missing category is a ToolDefinitionError naming the tool and the categories', () => {
    const weather = aiSdkTool({
      description: 'x',
      inputSchema: jsonSchema({ type: 'object' }),
      execute: async () => 1,
    });
    const attempts = [
      () => fromAiSdkTool('get_weather', weather, {} as never),
      () => fromAiSdkTool('get_weather', weather, undefined as never),
      () =>
        fromLangChainTool(
          langChainTool(async () => 'x', { name: 'search_docs', schema: z.object({}) }),
          { category: 'lookup' as never },
        ),
      () =>
        fromOpenAIAgentsTool(
          agentsTool({ name: 'delete_page', description: 'x', parameters: z.object({}), execute: () => 'x' }),
          {} as never,
        ),
    ];
    for (const attempt of attempts) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ToolDefinitionError);
      expect((thrown as ToolDefinitionError).code).toBe('invalid_category');
      expect((thrown as Error).message).toMatch(/"(get_weather|search_docs|delete_page)"/);
      expect((thrown as Error).message).toContain('read, search, write, execute, delegate');
    }
  });

  test('tools that cannot run here are refused with a way out', () => {
    const clientSide = aiSdkTool({
      description: 'Ask the user.',
      inputSchema: jsonSchema({ type: 'object' }),
    });
    expect(() => fromAiSdkTool('ask_user', clientSide, { category: 'read' })).toThrow(
      /has no execute function/,
    );
    expect(() => fromOpenAIAgentsTool({ type: 'hosted_tool' } as never, { category: 'read' })).toThrow(
      /not a function tool/,
    );
    expect(() => fromLangChainTool({} as never, { category: 'read' })).toThrow(/not a LangChain tool/);
  });

  test('without onWarning, a defaulted description is a process warning', async () => {
    const seen: { name: string; code?: string }[] = [];
    const listener = (warning: Error & { code?: string }) =>
      seen.push({ name: warning.name, code: warning.code });
    process.on('warning', listener);
    try {
      fromLangChainTool(
        langChainTool(async () => 'x', { name: 'quiet_tool', schema: z.object({}) }),
        { category: 'read' },
      );
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    expect(seen).toContainEqual({ name: 'ToolpactWarning', code: 'description_defaulted' });
  });
});
