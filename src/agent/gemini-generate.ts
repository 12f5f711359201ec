import { readGeminiFunctionCalls, toGeminiFunctionResponses } from '../calls/gemini-calls.js';
import { describePayload, own, ProviderPayloadError } from '../schema/payload-error.js';
import type { ModelAdapter, ModelTurn } from './model.js';
import { isAsyncIterable, stringAt, usageOf } from './wire.js';

/** A Gemini `Content`: a role (`user` or `model`) and its parts. */
export interface GeminiContent {
  readonly role?: string;
  readonly parts?: readonly unknown[];
}

/** The part of a `GoogleGenAI` client that `geminiGenerate` uses. */
export interface GeminiModelsClient {
  readonly models: {
    generateContent(params: never): PromiseLike<unknown>;
    generateContentStream(params: never): PromiseLike<unknown>;
  };
}

/** Options of {@link geminiGenerate}. */
export interface GeminiGenerateOptions {
  readonly model: string;
  /** The system instruction. */
  readonly system?: string;
  /** Send parameters as `parametersJsonSchema` instead of the OpenAPI-subset `parameters` (the default). */
  readonly jsonSchema?: boolean;
  /** Stream the answer (`generateContentStream`); the loop acts on the whole turn. */
  readonly stream?: boolean;
  /** Extra `config` fields (`temperature`, `toolConfig`, `thinkingConfig`, …). */
  readonly config?: Readonly<Record<string, unknown>>;
}

/**
 * A model behind the Gemini API, through the user's `@google/genai` client. The candidate's content goes
 * back as it came (thought signatures included); the results follow as one user content of
 * `functionResponse` parts carrying each call's `id`.
 *
 * @example
 * import { GoogleGenAI } from '@google/genai';
 * const model = geminiGenerate(new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY }), { model: 'gemini-2.5-flash' });
 */
export function geminiGenerate(
  client: GeminiModelsClient,
  options: GeminiGenerateOptions,
): ModelAdapter<GeminiContent> {
  return {
    provider: 'gcp.gemini',
    model: options.model,
    format: 'gemini',
    schemaOptions: options.jsonSchema ? { gemini: 'json-schema' } : {},
    async generate({ messages, tools, signal }) {
      const config: Record<string, unknown> = { ...options.config };
      // The SDK rewrites declarations in place, and the registry's are frozen: it gets its own copy.
      if (tools.length > 0) config.tools = [{ functionDeclarations: structuredClone(tools) }];
      if (options.system !== undefined) config.systemInstruction = options.system;
      if (signal) config.abortSignal = signal;
      const params = { model: options.model, contents: messages, config } as never;
      if (options.stream === true)
        return readResponse(await joinChunks(await client.models.generateContentStream(params)));
      return readResponse(await client.models.generateContent(params));
    },
    toolResults: (outcomes) => [toGeminiFunctionResponses(outcomes)],
  };
}

/** A streamed answer as one response: the parts of every chunk in order, adjacent plain text joined. */
async function joinChunks(stream: unknown): Promise<unknown> {
  if (!isAsyncIterable(stream))
    throw new ProviderPayloadError(
      '$',
      'a stream of GenerateContentResponse chunks',
      describePayload(stream),
    );
  const parts: Record<string, unknown>[] = [];
  let last: unknown;
  let candidate: Record<string, unknown> = {};
  for await (const chunk of stream) {
    last = chunk;
    const first = (own(chunk, 'candidates') as unknown[] | undefined)?.[0];
    if (first === undefined) continue;
    candidate = { ...candidate, ...(first as object) };
    const chunkParts = own(own(first, 'content'), 'parts');
    if (!Array.isArray(chunkParts)) continue;
    for (const part of chunkParts as Record<string, unknown>[]) {
      const previous = parts.at(-1);
      if (isPlainText(part) && previous && isPlainText(previous))
        parts[parts.length - 1] = { text: `${previous.text}${part.text}` };
      else parts.push(part);
    }
  }
  if (last === undefined) throw new ProviderPayloadError('$', 'at least one chunk', 'an empty stream');
  const role = stringAt(own(candidate, 'content'), 'role') ?? 'model';
  return {
    ...(last as object),
    candidates: [{ ...candidate, content: { role, parts } }],
  };
}

function isPlainText(part: Record<string, unknown>): boolean {
  return typeof part.text === 'string' && Object.keys(part).length === 1;
}

function readResponse(response: unknown): ModelTurn<GeminiContent> {
  const candidate = (own(response, 'candidates') as unknown[] | undefined)?.[0];
  const content = own(candidate, 'content');
  if (candidate === undefined) {
    const blocked = stringAt(own(response, 'promptFeedback'), 'blockReason');
    throw new ProviderPayloadError(
      '$.candidates',
      'at least one candidate',
      blocked ? `none: the prompt was blocked (${blocked})` : describePayload(own(response, 'candidates')),
    );
  }
  const calls = readGeminiFunctionCalls(response);
  const parts = own(content, 'parts');
  let text = '';
  if (Array.isArray(parts))
    for (const part of parts) if (own(part, 'thought') !== true) text += stringAt(part, 'text') ?? '';
  return {
    text,
    calls,
    // A candidate without parts (a finish reason only) adds nothing: the API refuses an empty content.
    messages: Array.isArray(parts) && parts.length > 0 ? [{ role: 'model', parts }] : [],
    usage: usageOf(
      own(response, 'usageMetadata'),
      ['promptTokenCount'],
      ['candidatesTokenCount', 'thoughtsTokenCount'],
    ),
    finishReason: stringAt(candidate, 'finishReason'),
    responseModel: stringAt(response, 'modelVersion'),
    responseId: stringAt(response, 'responseId'),
  };
}
