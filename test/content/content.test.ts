import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { sentContentOf } from '../../src/content/carried.js';
import { limitContent } from '../../src/content/limit-content.js';
import {
  type CallRecord,
  CONTENT_BLOCK_TYPES,
  content,
  DEFAULT_MAX_BINARY_BYTES,
  defineTool,
  Registry,
  ToolDefinitionError,
  toolResult,
  toProviderTools,
} from '../../src/index.js';
import { RESULT_CONTENT } from '../../src/schema/index.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_BASE64 = Buffer.from(PNG).toString('base64');

/** A registry with one tool answering `make()`. */
function registryWith(make: () => unknown, options: ConstructorParameters<typeof Registry>[0] = {}) {
  return new Registry(options).register(
    defineTool({
      name: 'picture',
      description: 'Answers content blocks.',
      category: 'read',
      input: z.object({}),
      execute: make as () => string,
    }),
  );
}

describe('content helpers', () => {
  test('bytes are encoded as base64; base64 text is kept; the blocks are MCP blocks', () => {
    expect(content.image(PNG, 'image/png')).toEqual({
      type: 'image',
      data: PNG_BASE64,
      mimeType: 'image/png',
    });
    expect(content.audio(PNG_BASE64, 'audio/wav')).toEqual({
      type: 'audio',
      data: PNG_BASE64,
      mimeType: 'audio/wav',
    });
    // A view into a larger buffer encodes only its own bytes.
    const view = new Uint8Array([0, 1, 2, 3, 4]).subarray(1, 3);
    expect(content.image(view, 'image/png').data).toBe(Buffer.from([1, 2]).toString('base64'));
    expect(content.resourceLink({ uri: 'file:///a.txt', name: 'a.txt', size: 3 })).toEqual({
      type: 'resource_link',
      uri: 'file:///a.txt',
      name: 'a.txt',
      size: 3,
    });
    expect(content.resource({ uri: 'test://b', blob: PNG })).toEqual({
      type: 'resource',
      resource: { uri: 'test://b', blob: PNG_BASE64 },
    });
    expect(content.resource({ uri: 'test://t', mimeType: 'text/plain', text: 'hi' })).toEqual({
      type: 'resource',
      resource: { uri: 'test://t', mimeType: 'text/plain', text: 'hi' },
    });
  });

  test.each([
    ['text that is not base64', () => content.image('not base64!', 'image/png'), /not padded base64/],
    ['unpadded base64', () => content.image('aGVsbG8', 'image/png'), /not padded base64/],
    ['a number for data', () => content.audio(42 as never, 'audio/wav'), /received number/],
    [
      'a MIME type without a subtype',
      () => content.image(PNG, 'png'),
      /MIME type such as "image\/png", received "png"/,
    ],
    [
      'a resource with neither text nor blob',
      () => content.resource({ uri: 'x://y' } as never),
      /neither text/,
    ],
    ['a link without a name', () => content.resourceLink({ uri: 'x://y' } as never), /\{ uri, name \}/],
  ])('%s is refused, saying what came and what to give', (_name, make, message) => {
    expect(make).toThrow(TypeError);
    expect(make).toThrow(message);
  });

  test('toolResult refuses what is not a block, and structured content that is not an object', () => {
    expect(() => toolResult({ content: [{ type: 'video', data: '' } as never] })).toThrow(
      /content\[0\] is not a content block \(its type is "video"\)/,
    );
    expect(() => toolResult({ content: 'hi' as never })).toThrow(/toolResult takes \{ content/);
    expect(() => toolResult({ content: [], structuredContent: [1] as never })).toThrow(/received an array/);
  });
});

describe('a toolResult through registry.call', () => {
  test('the envelope holds the blocks as JSON; the MCP result rides on it where JSON and spreads never look', async () => {
    const records: CallRecord[] = [];
    const registry = registryWith(
      () =>
        toolResult({
          content: [content.text('A picture:'), content.image(PNG, 'image/png')],
          structuredContent: { width: 1 },
        }),
      { observe: (record) => void records.push(record) },
    );
    const envelope = await registry.call('picture', {});
    const blocks = [
      { type: 'text', text: 'A picture:' },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    ];
    expect(envelope).toEqual({ ok: true, result: { content: blocks, structuredContent: { width: 1 } } });
    expect(await registry.dispatch('picture', {})).toBe(
      JSON.stringify({ ok: true, result: { content: blocks, structuredContent: { width: 1 } } }),
    );
    expect(sentContentOf(envelope)).toEqual({ content: blocks, structuredContent: { width: 1 } });
    // Nothing copies the side channel: not a spread, not a clone, not the observers' record.
    expect(sentContentOf({ ...envelope })).toBeUndefined();
    expect(sentContentOf(structuredClone(envelope))).toBeUndefined();
    expect(JSON.stringify(records)).not.toContain(PNG_BASE64);
  });

  test('a tool cannot forge the side channel: a plain object shaped like a result is only a value', async () => {
    const forged = { content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] };
    const envelope = await registryWith(() => forged).call('picture', {});
    expect(envelope).toEqual({ ok: true, result: forged });
    expect(sentContentOf(envelope)).toBeUndefined();
  });

  test('a return schema checks the structured value', async () => {
    const make = (structuredContent: { readonly [key: string]: unknown }) =>
      new Registry().register(
        defineTool({
          name: 'measure',
          description: 'Answers a picture and its size.',
          category: 'read',
          input: z.object({}),
          output: z.object({ width: z.number() }),
          execute: () =>
            toolResult({ content: [content.image(PNG, 'image/png')], structuredContent }) as never,
        }),
      );
    expect(await make({ width: 2 }).call('measure', {})).toMatchObject({ ok: true });
    const broken = await make({ width: 'wide' }).call('measure', {});
    expect(broken).toMatchObject({ ok: false, error: { type: 'invalid_result' } });
    expect(sentContentOf(broken)).toBeUndefined();
  });

  test('a helper refusing its input ends the call in the tool failure envelope', async () => {
    const envelope = await registryWith(() =>
      toolResult({ content: [content.image('%%%%', 'image/png')] }),
    ).call('picture', {});
    expect(envelope).toMatchObject({ ok: false, error: { type: 'TypeError' } });
  });

  test('maxBinaryBytes must be a whole number of bytes', () => {
    expect(() => new Registry({ maxBinaryBytes: -1 })).toThrow(ToolDefinitionError);
    expect(() => new Registry({ maxBinaryBytes: 1.5 })).toThrow(/whole number of bytes/);
    expect(DEFAULT_MAX_BINARY_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe('limits', () => {
  const image = (bytes: number) => content.image(new Uint8Array(bytes), 'image/png');

  test('a binary block over the limit is replaced by a text block saying what was dropped and why, on both faces', async () => {
    const registry = registryWith(() => toolResult({ content: [content.text('before'), image(11)] }), {
      maxBinaryBytes: 10,
    });
    const envelope = await registry.call('picture', {});
    const sent = sentContentOf(envelope)!;
    expect(sent.content).toHaveLength(2);
    expect(sent.content[1]).toEqual({
      type: 'text',
      text: expect.stringMatching(/an image \(image\/png\) of 11 bytes was left out: .* at most 10 bytes/),
    });
    expect(JSON.stringify(envelope)).not.toContain(Buffer.alloc(11).toString('base64'));
    // At the limit it is kept.
    const atLimit = await registryWith(() => toolResult({ content: [image(10)] }), {
      maxBinaryBytes: 10,
    }).call('picture', {});
    expect(sentContentOf(atLimit)!.content[0]).toMatchObject({ type: 'image' });
  });

  test('blocks each under the limit cannot pass it together; an embedded blob counts as binary too', () => {
    const limited = limitContent(
      { content: [image(6), image(6), content.resource({ uri: 'x://b', blob: new Uint8Array(6) })] },
      { maxChars: 10_000, maxBinaryBytes: 10 },
    );
    expect(limited.content.map((block) => block.type)).toEqual(['image', 'text', 'text']);
    expect(JSON.stringify(limited.content[2])).toContain('an embedded resource of 6 bytes was left out');
  });

  test('a hostile mix of blocks is cut so the text of the whole fits, with a visible marker and a count of what was left out', () => {
    const maxChars = 2_000;
    const hostile = {
      content: [
        ...Array.from({ length: 5_000 }, () => content.text('')),
        content.text('x'.repeat(50_000)),
        content.resource({ uri: 'x://t', text: 'y'.repeat(50_000) }),
        content.resourceLink({ uri: `x://${'z'.repeat(10_000)}`, name: 'long' }),
        ...Array.from({ length: 1_000 }, () => image(1)),
      ],
      structuredContent: { big: 'w'.repeat(5_000) },
      _meta: { note: 'kept' },
    };
    const limited = limitContent(hostile, { maxChars, maxBinaryBytes: DEFAULT_MAX_BINARY_BYTES });
    const text = limited.content
      .map((block) =>
        block.type === 'text'
          ? block.text
          : block.type === 'resource' && 'text' in block.resource
            ? block.resource.text
            : '',
      )
      .join('');
    expect(text.length).toBeLessThanOrEqual(maxChars);
    expect(limited.content.length).toBeLessThan(200);
    expect(text).toMatch(/\[toolpact: .*left out to keep the result within 2000 characters/);
    expect(limited.structuredContent).toBeUndefined();
    expect(limited._meta).toEqual({ note: 'kept' });
    // One long block is cut with the marker, keeping its first characters.
    const single = limitContent(
      { content: [content.text('a'.repeat(5_000))] },
      { maxChars, maxBinaryBytes: 0 },
    );
    const [only] = single.content as unknown as [{ text: string }];
    expect(only.text.length).toBeLessThanOrEqual(maxChars);
    expect(only.text).toMatch(/^a+\n\[toolpact: cut to the first \d+ of 5000 characters/);
  });

  test('under a limit smaller than the closing notice, the notice is cut too', () => {
    const limited = limitContent(
      { content: [content.text('x'.repeat(300)), image(1)] },
      { maxChars: 200, maxBinaryBytes: DEFAULT_MAX_BINARY_BYTES },
    );
    const text = limited.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(limited.content.map((block) => block.type)).toEqual(['text']);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toMatch(/^\[toolpact: 1 text, 1 binary block\(s\) were left out/);
  });

  test('a surrogate pair is never split by a cut', () => {
    const limited = limitContent(
      { content: [content.text('😀'.repeat(2_000))] },
      { maxChars: 1_000, maxBinaryBytes: 0 },
    );
    const shown = (limited.content[0] as { text: string }).text.split('\n[toolpact')[0]!;
    expect(shown).toBe('😀'.repeat(shown.length / 2));
  });

  test('what fits comes back as the same object', () => {
    const result = { content: [content.text('short')] };
    expect(limitContent(result, { maxChars: 1_000, maxBinaryBytes: 0 })).toBe(result);
  });
});

describe('declared content', () => {
  const declaring = (declared: readonly string[]) =>
    defineTool({
      name: 'take_screenshot',
      description: 'Takes a screenshot.',
      category: 'read',
      input: z.object({}),
      content: declared as never,
      execute: () => toolResult({ content: [content.image(PNG, 'image/png')] }) as never,
    });

  test('the contract carries it, and each format that cannot hold a type says so', () => {
    const tool = declaring(['text', 'image']);
    expect(tool.contract.returns).toEqual({ content: ['text', 'image'] });
    const warned = (format: Parameters<typeof toProviderTools>[1]) =>
      toProviderTools([tool.contract], format).diagnostics.filter(
        (diagnostic) => diagnostic.code === 'result_content_unsupported',
      );
    expect(warned('openai')).toEqual([
      expect.objectContaining({ severity: 'warning', path: '$.returns.content[1]', tool: 'take_screenshot' }),
    ]);
    for (const format of ['openai-responses', 'anthropic', 'gemini', 'mcp'] as const)
      expect(warned(format)).toEqual([]);
    expect(RESULT_CONTENT.mcp.accepts).toEqual(CONTENT_BLOCK_TYPES);
  });

  test('an unknown or repeated type is a definition error', () => {
    expect(() => declaring(['video'])).toThrow(ToolDefinitionError);
    expect(() => declaring(['image', 'image'])).toThrow(/each once/);
  });
});
