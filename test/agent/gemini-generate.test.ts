import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, test } from 'vitest';
import { type GeminiContent, geminiGenerate, runAgent } from '../../src/agent/index.js';
import { fakeServer, type Script, testRegistry } from './support.js';

/** A `GenerateContentResponse` as the REST API documents it. */
function generated(parts: unknown[], usage: [number, number] = [60, 12]) {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: usage[0],
      candidatesTokenCount: usage[1],
      totalTokenCount: usage[0] + usage[1],
    },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'mAitaLmkHPPlz7IPvtfUqQ4',
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function client(script: Script) {
  const server = await fakeServer(script);
  close = server.close;
  const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.url } });
  return { ai, requests: server.requests };
}

const ask = (text: string): GeminiContent[] => [{ role: 'user', parts: [{ text }] }];

describe('geminiGenerate over the real @google/genai client, against a server on 127.0.0.1', () => {
  test('functionCall parts run; functionResponse parts carry the id and name, failures under error', async () => {
    const { ai, requests } = await client([
      {
        json: generated([
          {
            functionCall: { id: 'fc-1', name: 'get_weather', args: { city: 'Accra' } },
            thoughtSignature: 'c2lnbmF0dXJl',
          },
          { functionCall: { id: 'fc-2', name: 'get_weather', args: { town: 'Kumasi' } } },
        ]),
      },
      { json: generated([{ text: 'Accra is at 18°C.' }], [150, 9]) },
    ]);
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: geminiGenerate(ai, { model: 'gemini-2.5-flash', system: 'Be brief.' }),
      registry,
      messages: ask('Weather?'),
    });
    expect(result.stopReason).toBe('text');
    expect(result.text).toBe('Accra is at 18°C.');
    expect(ran).toEqual(['get_weather:Accra']);
    expect(result.usage).toEqual({ inputTokens: 210, outputTokens: 21 });
    expect(requests[0]!.url).toContain('/models/gemini-2.5-flash:generateContent');
    const first = requests[0]!.body as {
      tools: { functionDeclarations: { name: string }[] }[];
      systemInstruction: unknown;
    };
    expect(first.tools[0]!.functionDeclarations.map((declaration) => declaration.name)).toEqual([
      'get_weather',
      'save_note',
      'slow_search',
    ]);
    expect(first.systemInstruction).toMatchObject({ parts: [{ text: 'Be brief.' }] });
    const contents = requests[1]!.body.contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]!.parts[0]).toMatchObject({ thoughtSignature: 'c2lnbmF0dXJl' });
    const [ok, bad] = contents[2]!.parts as {
      functionResponse: { id: string; name: string; response: Record<string, unknown> };
    }[];
    expect(ok!.functionResponse).toEqual({
      id: 'fc-1',
      name: 'get_weather',
      response: { output: { city: 'Accra', temperature: 18, units: 'metric' } },
    });
    expect(bad!.functionResponse).toMatchObject({
      id: 'fc-2',
      name: 'get_weather',
      response: { error: { type: 'invalid_arguments' } },
    });
  });

  test('a streamed answer (server-sent events) is joined into one turn', async () => {
    const { ai, requests } = await client([
      {
        sse: [
          { candidates: [{ content: { role: 'model', parts: [{ text: 'Checking' }] }, index: 0 }] },
          { candidates: [{ content: { role: 'model', parts: [{ text: ' now.' }] }, index: 0 }] },
          {
            candidates: [
              {
                content: {
                  role: 'model',
                  parts: [{ functionCall: { name: 'get_weather', args: { city: 'Dakar' } } }],
                },
                finishReason: 'STOP',
                index: 0,
              },
            ],
            usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 7, totalTokenCount: 47 },
          },
        ],
      },
      { sse: [generated([{ text: 'Dakar: 18°C' }], [80, 4])] },
    ]);
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: geminiGenerate(ai, { model: 'gemini-2.5-flash', stream: true }),
      registry,
      messages: ask('x'),
    });
    expect(requests[0]!.url).toContain(':streamGenerateContent?alt=sse');
    expect(ran).toEqual(['get_weather:Dakar']);
    expect(result.steps[0]!.text).toBe('Checking now.');
    expect(result.text).toBe('Dakar: 18°C');
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 11 });
    const contents = requests[1]!.body.contents as { role: string; parts: unknown[] }[];
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [{ text: 'Checking now.' }, { functionCall: { name: 'get_weather', args: { city: 'Dakar' } } }],
    });
    // Without an id from the model, the response is matched by name, as the API does.
    expect(contents[2]!.parts[0]).toMatchObject({ functionResponse: { name: 'get_weather' } });
  });

  test('a blocked prompt (no candidate) ends the run with model_error saying why', async () => {
    const { ai } = await client([
      { json: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5 } } },
    ]);
    const { registry } = testRegistry();
    const result = await runAgent({
      model: geminiGenerate(ai, { model: 'gemini-2.5-flash' }),
      registry,
      messages: ask('x'),
    });
    expect(result.stopReason).toBe('model_error');
    expect(result.error!.message).toContain('SAFETY');
  });
});
