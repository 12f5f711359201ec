import type Anthropic from '@anthropic-ai/sdk';
import { tool as aiTool, generateText, jsonSchema, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createTool, type Envelope, Registry } from '../../src/index.js';
import { lint } from '../../src/lint/index.js';
import {
  embeddingRetriever,
  hybridRetriever,
  lexicalRetriever,
  SEARCH_TOOL_NAME,
  withToolSearch,
} from '../../src/search/index.js';

function tool(name: string, description: string, category: 'read' | 'write' = 'read') {
  return createTool(
    {
      name,
      description,
      category,
      parameters: { type: 'object', properties: { text: { type: 'string', description: 'Input text' } } },
    },
    { execute: (args) => ({ ran: name, args }) },
  );
}

function workspace() {
  return new Registry().register(
    tool('read_file', 'Reads a text file of the workspace.'),
    tool('get_weather', 'Returns the weather forecast for a city.'),
    tool('convert_currency', 'Converts an amount of money between currencies.'),
    tool('translate_text', 'Translates text into another language.'),
    tool('send_email', 'Sends an email message to a recipient.', 'write'),
  );
}

function found(envelope: Envelope): string[] {
  if (!envelope.ok) throw new Error(envelope.error.message);
  return (envelope.result as { tools: { name: string }[] }).tools.map((entry) => entry.name);
}

describe('withToolSearch', () => {
  it('shows the always-loaded tools and search_tools, then what a search loads', async () => {
    const search = withToolSearch(workspace(), { alwaysLoaded: ['read_file'], k: 2 });
    expect(search.activeTools()).toEqual(['read_file', SEARCH_TOOL_NAME]);
    let changes = 0;
    search.onChange(() => changes++);
    const envelope = await search.registry.call(SEARCH_TOOL_NAME, { query: 'what is the weather in Oslo' });
    expect(found(envelope)[0]).toBe('get_weather');
    expect(
      envelope.ok && (envelope.result as { tools: { purpose: string; parameters: string }[] }).tools[0],
    ).toMatchObject({
      purpose: 'Returns the weather forecast for a city.',
      parameters: 'text? (string)',
    });
    expect(search.activeTools()).toContain('get_weather');
    expect(changes).toBe(1);
    expect(search.schemas('openai').map((entry) => entry.function.name)).toEqual(search.activeTools());
  });

  it('keeps at most maxLoaded searched tools, least recently used out first', async () => {
    const search = withToolSearch(workspace(), { maxLoaded: 2 });
    search.load(['get_weather', 'convert_currency']);
    search.touch('get_weather');
    search.load(['translate_text']);
    expect(search.activeTools()).toEqual(['get_weather', 'translate_text', SEARCH_TOOL_NAME]);
    search.reset();
    expect(search.activeTools()).toEqual([SEARCH_TOOL_NAME]);
  });

  it('dispatch reaches every registered tool, loaded or not; the gate decides what runs', async () => {
    const denied: string[] = [];
    const registry = new Registry({
      beforeCall: (request) => {
        if (request.tool.category !== 'write') return undefined;
        denied.push(request.tool.name);
        return { action: 'deny', reason: 'no writes' };
      },
    }).register(tool('get_weather', 'Returns the weather.'), tool('send_email', 'Sends an email.', 'write'));
    const search = withToolSearch(registry);
    expect(search.activeTools()).toEqual([SEARCH_TOOL_NAME]);
    expect((await search.registry.call('get_weather', { text: 'Oslo' })).ok).toBe(true);
    const refused = await search.registry.call('send_email', {});
    expect(!refused.ok && refused.error.type).toBe('permission_denied');
    expect(denied).toEqual(['send_email']);
  });

  it('answers a search with no match as data the model can act on', async () => {
    const search = withToolSearch(workspace());
    const envelope = await search.registry.call(SEARCH_TOOL_NAME, { query: 'zzzz qqqq' });
    expect(envelope.ok && envelope.result).toMatchObject({ tools: [] });
    const invalid = await search.registry.call(SEARCH_TOOL_NAME, { query: '' });
    expect(!invalid.ok && invalid.error.type).toBe('invalid_arguments');
  });

  it('follows the registry: new tools become findable, removed ones unload', async () => {
    const registry = workspace();
    const search = withToolSearch(registry);
    search.load(['get_weather']);
    registry.unregister('get_weather');
    expect(search.activeTools()).toEqual([SEARCH_TOOL_NAME]);
    registry.register(tool('book_flight', 'Books a flight between two airports.'));
    expect(found(await registry.call(SEARCH_TOOL_NAME, { query: 'book a flight to Rome' }))[0]).toBe(
      'book_flight',
    );
  });

  it('refuses options that cannot work, naming what came', () => {
    expect(() => withToolSearch(workspace(), { alwaysLoaded: ['read_fil'] })).toThrow(
      /"read_fil".*"read_file"/,
    );
    expect(() => withToolSearch(workspace(), { k: 0 })).toThrow(/k is 0/);
    expect(() => withToolSearch(workspace(), { maxLoaded: 1.5 })).toThrow(/maxLoaded is 1.5/);
  });

  it('search_tools follows the lint rules', () => {
    const search = withToolSearch(workspace());
    const result = lint([search.tool]);
    expect(result.findings.map((finding) => `${finding.rule}: ${finding.message}`)).toEqual([]);
  });

  it('the stateless list (search_tools as described there, and call_tool) follows the lint rules', () => {
    const search = withToolSearch(workspace(), { alwaysLoaded: ['read_file'] });
    const listed = search.stateless.schemas();
    expect(listed.map((contract) => contract.name)).toEqual(['read_file', 'search_tools', 'call_tool']);
    const result = lint(listed.filter((contract) => contract.name !== 'read_file'));
    expect(result.findings.map((finding) => `${finding.rule}: ${finding.message}`)).toEqual([]);
  });

  it("Anthropic's native tool search: the server tool, then every tool, deferred unless always loaded", () => {
    const search = withToolSearch(workspace(), { alwaysLoaded: ['read_file'] });
    // Assigned without a cast: the SDK's own types check what the adapter sends.
    const tools: Anthropic.Messages.ToolUnion[] = search.anthropicNative();
    expect(tools[0]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    const byName = Object.fromEntries(
      tools
        .slice(1)
        .map((entry) => [(entry as Anthropic.Messages.Tool).name, entry as Anthropic.Messages.Tool]),
    );
    expect(Object.keys(byName)).not.toContain(SEARCH_TOOL_NAME);
    expect(byName.read_file?.defer_loading).toBeUndefined();
    expect(byName.get_weather?.defer_loading).toBe(true);
    expect(search.anthropicNative({ variant: 'regex' })[0]).toMatchObject({ name: 'tool_search_tool_regex' });
  });
});

describe('retrievers', () => {
  // A deterministic embedder: a bag of hashed words, so texts sharing words are near.
  const fakeEmbed = async (texts: readonly string[]) =>
    texts.map((text) => {
      const vector = new Array<number>(64).fill(0);
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        let hash = 0;
        for (const char of word.slice(0, 5)) hash = (hash * 31 + char.charCodeAt(0)) % 64;
        vector[hash]! += 1;
      }
      return vector;
    });

  it('the embedding retriever ranks by cosine similarity and embeds an unchanged tool once', async () => {
    let embedded = 0;
    const retriever = embeddingRetriever({
      embed: async (texts) => {
        embedded += texts.length;
        return fakeEmbed(texts);
      },
    });
    const contracts = workspace().schemas();
    await retriever.index(contracts);
    await retriever.index(contracts);
    expect(embedded).toBe(contracts.length);
    expect((await retriever.search('weather forecast', 1))[0]?.name).toBe('get_weather');
  });

  it('the hybrid combiner fuses ranks, so a tool either retriever finds is kept', async () => {
    // The embedder sees only "monetary" in convert_currency's text; the lexical index does not know the word.
    const semantic = embeddingRetriever({
      embed: fakeEmbed,
      text: (contract) => (contract.name === 'convert_currency' ? 'monetary exchange' : contract.description),
    });
    const lexical = lexicalRetriever();
    const hybrid = hybridRetriever([lexical, semantic]);
    const contracts = workspace().schemas();
    await hybrid.index(contracts);
    expect((await lexical.search('monetary exchange of weather', 5)).map((hit) => hit.name)).not.toContain(
      'convert_currency',
    );
    const fused = (await hybrid.search('monetary exchange of weather', 2)).map((hit) => hit.name);
    expect(fused.sort()).toEqual(['convert_currency', 'get_weather']);
  });

  it('withToolSearch takes a retriever of its own', async () => {
    const search = withToolSearch(workspace(), { retriever: embeddingRetriever({ embed: fakeEmbed }) });
    expect(found(await search.registry.call(SEARCH_TOOL_NAME, { query: 'translate text', k: 1 }))).toEqual([
      'translate_text',
    ]);
  });

  it('an embedder that answers the wrong number of vectors fails the search as data', async () => {
    const search = withToolSearch(workspace(), { retriever: embeddingRetriever({ embed: async () => [] }) });
    const envelope = await search.registry.call(SEARCH_TOOL_NAME, { query: 'weather' });
    expect(envelope.ok).toBe(false);
    expect(JSON.stringify(envelope)).not.toMatch(/\/work|at .*\.ts/);
  });
});

describe('the AI SDK, with prepareStep changing the active tools between steps', () => {
  it('search_tools loads get_weather in step 1, which the model calls in step 2', async () => {
    const search = withToolSearch(workspace(), { alwaysLoaded: ['read_file'], k: 1 });
    const tools: ToolSet = Object.fromEntries(
      search.registry.schemas().map((contract) => [
        contract.name,
        aiTool({
          description: contract.description,
          inputSchema: jsonSchema(contract.parameters as Parameters<typeof jsonSchema>[0]),
          execute: async (args) => search.registry.call(contract.name, args),
        }),
      ]),
    );
    const offered: string[][] = [];
    let step = 0;
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        offered.push((options.tools ?? []).map((entry) => entry.name));
        step++;
        if (step === 1) {
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'c1',
                toolName: SEARCH_TOOL_NAME,
                input: '{"query":"weather forecast"}',
              },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        if (step === 2) {
          return {
            content: [
              { type: 'tool-call', toolCallId: 'c2', toolName: 'get_weather', input: '{"text":"Oslo"}' },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      tools,
      prompt: 'What is the weather in Oslo?',
      stopWhen: ({ steps }) => steps.length >= 3,
      prepareStep: () => ({ activeTools: [...search.activeTools()] }),
    });
    expect(offered[0]?.sort()).toEqual(['read_file', SEARCH_TOOL_NAME].sort());
    expect(offered[1]?.sort()).toEqual(['get_weather', 'read_file', SEARCH_TOOL_NAME].sort());
    const weather = result.steps[1]?.toolResults[0]?.output as Envelope;
    expect(weather).toEqual({ ok: true, result: { ran: 'get_weather', args: { text: 'Oslo' } } });
    expect(result.text).toBe('done');
  });
});
