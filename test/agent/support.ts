import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type OpenAI from 'openai';
import * as z from 'zod';
import { defineTool, Registry, type RegistryOptions } from '../../src/index.js';

/** One HTTP request the SDK under test sent. */
export interface SeenRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

/** An answer of the fake provider: a JSON body, server-sent events, or an HTTP error. */
export type FakeAnswer =
  | { readonly json: unknown; readonly status?: number; readonly headers?: Record<string, string> }
  | {
      readonly sse: readonly (unknown | { readonly event: string; readonly data: unknown })[];
      readonly done?: boolean;
    };

/** Answers the n-th request (0-based) with the n-th answer; a function sees the request. */
export type Script = readonly (FakeAnswer | ((request: SeenRequest) => FakeAnswer))[];

function answerOf(script: Script, index: number, request: SeenRequest): FakeAnswer {
  const entry = script[Math.min(index, script.length - 1)];
  if (entry === undefined) return { json: { error: 'no scripted answer' }, status: 500 };
  return typeof entry === 'function' ? entry(request) : entry;
}

function sseText(answer: Extract<FakeAnswer, { sse: unknown }>): string {
  let text = '';
  for (const item of answer.sse) {
    if (item !== null && typeof item === 'object' && 'event' in item && 'data' in item) {
      const named = item as { event: string; data: unknown };
      text += `event: ${named.event}\ndata: ${JSON.stringify(named.data)}\n\n`;
    } else text += `data: ${JSON.stringify(item)}\n\n`;
  }
  if (answer.done) text += 'data: [DONE]\n\n';
  return text;
}

/**
 * A `fetch` for an SDK's `fetch` option: each request is recorded and answered from the script, over a
 * real `Response` (so the SDK's own HTTP handling, retries and stream parsing all run).
 */
export function fakeFetch(script: Script) {
  const requests: SeenRequest[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const text = typeof init?.body === 'string' ? init.body : '';
    const request: SeenRequest = {
      url,
      method: init?.method ?? 'GET',
      headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
    const answer = answerOf(script, requests.length, request);
    requests.push(request);
    if ('sse' in answer)
      return new Response(sseText(answer), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    return new Response(JSON.stringify(answer.json), {
      status: answer.status ?? 200,
      headers: { 'content-type': 'application/json', ...answer.headers },
    });
  };
  return { fetch, requests };
}

/** The same script behind a real HTTP server on 127.0.0.1 (for SDKs without a `fetch` option). */
export async function fakeServer(script: Script) {
  const requests: SeenRequest[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(request.headers)) headers[key] = String(value);
      const seen: SeenRequest = {
        url: request.url ?? '',
        method: request.method ?? 'GET',
        headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
      const answer = answerOf(script, requests.length, seen);
      requests.push(seen);
      if ('sse' in answer) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(sseText(answer));
      } else {
        response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        response.end(JSON.stringify(answer.json));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A small tool set with one tool per interesting outcome, and a log of what ran. */
export function testRegistry(options: RegistryOptions = {}) {
  const ran: string[] = [];
  const weather = defineTool({
    name: 'get_weather',
    category: 'read',
    description: 'The current weather in one city. Use it for today only; it knows no forecast.',
    input: z.object({
      city: z.string().min(1).describe('The city name, e.g. "Paris"'),
      units: z.enum(['metric', 'imperial']).optional().describe('Units of the temperature (default metric)'),
    }),
    execute: ({ city, units }) => {
      ran.push(`get_weather:${city}`);
      return { city, temperature: units === 'imperial' ? 64 : 18, units: units ?? 'metric' };
    },
  });
  const note = defineTool({
    name: 'save_note',
    category: 'write',
    description: 'Save a short note. It writes; repeating it saves the note twice.',
    input: z.object({ text: z.string().describe('The note text') }),
    execute: ({ text }) => {
      ran.push(`save_note:${text}`);
      return 'saved';
    },
  });
  const slow = defineTool({
    name: 'slow_search',
    category: 'search',
    description: 'A search that takes its time. Use it only when asked to wait.',
    input: z.object({ query: z.string().describe('What to look for') }),
    execute: async ({ query }, { signal }) => {
      ran.push(`slow_search:${query}`);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, 5_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
      return [];
    },
  });
  const registry = new Registry(options).register(weather, note, slow);
  return { registry, ran };
}

/** The envelope JSON a `tool` message or result block carries, parsed. */
export function envelopeOf(text: unknown): {
  ok: boolean;
  result?: unknown;
  error?: { type: string; message: string };
} {
  return JSON.parse(String(text));
}

/** One tool call of a scripted Chat Completions answer. */
export interface ChatCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A `chat.completion` as the API documents it: tool calls, or text (typed against the SDK's own type). */
export function chatCompletion(body: {
  calls?: readonly ChatCall[];
  text?: string;
  usage?: [number, number];
}) {
  const calls = body.calls ?? [];
  const [input, output] = body.usage ?? [100, 20];
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: 1_764_000_000,
    model: 'gpt-5-mini-2025-08-07',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: body.text ?? null,
          refusal: null,
          annotations: [],
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  } satisfies OpenAI.Chat.ChatCompletion;
}
