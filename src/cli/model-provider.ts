/** The model providers `toolpact run` talks to: each one's client, built from the environment. */
import { anthropicMessages, geminiGenerate, type ModelAdapter, openaiChat } from '../agent/index.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';

export const PROVIDERS = ['openai', 'openai-compatible', 'anthropic', 'gemini'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Where each provider's SDK sends requests when no `--base-url` is given (for messages only). */
const DEFAULT_URLS: { readonly [P in Provider]: string } = {
  openai: 'https://api.openai.com/v1',
  'openai-compatible': '',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

/** What `toolpact run` was told about the model. */
export interface Setup {
  readonly provider: Provider;
  readonly model: string;
  readonly baseUrl: string | undefined;
  readonly system: string | undefined;
  readonly stream: boolean;
}

/** The user's first message, in the provider's shape. */
export function firstMessages(provider: Provider, task: string): unknown[] {
  return provider === 'gemini'
    ? [{ role: 'user', parts: [{ text: task }] }]
    : [{ role: 'user', content: task }];
}

/** Builds the provider's own client from the environment; a missing key or package is a usage error. */
export async function connect(
  setup: Setup,
  io: CliIo,
): Promise<{ adapter: ModelAdapter<unknown>; url: string }> {
  const { provider, model, system, stream } = setup;
  const need = (variable: string) => {
    const value = io.env[variable];
    if (!value)
      throw new UsageError(
        `The ${provider} provider needs an API key in ${variable}, which is not set. Export it, or use --provider openai-compatible --base-url <url> for a local server.`,
      );
    return value;
  };
  switch (provider) {
    case 'openai':
    case 'openai-compatible': {
      const apiKey = provider === 'openai' ? need('OPENAI_API_KEY') : (io.env.OPENAI_API_KEY ?? 'not-needed');
      const url = setup.baseUrl ?? (provider === 'openai' ? DEFAULT_URLS.openai : io.env.OPENAI_BASE_URL);
      if (!url)
        throw new UsageError(
          'The openai-compatible provider needs the server URL: pass --base-url (e.g. http://127.0.0.1:11434/v1 for Ollama) or set OPENAI_BASE_URL.',
        );
      const { default: OpenAI } = await loadPackage<typeof import('openai')>(
        'openai',
        () => import('openai'),
      );
      const client = new OpenAI({ apiKey, baseURL: url });
      const adapter = openaiChat(client, {
        model,
        stream,
        ...(provider === 'openai' ? {} : { provider: 'openai-compatible' }),
      });
      return { adapter: withSystem(adapter, system) as ModelAdapter<unknown>, url };
    }
    case 'anthropic': {
      const apiKey = need('ANTHROPIC_API_KEY');
      const { default: Anthropic } = await loadPackage<typeof import('@anthropic-ai/sdk')>(
        '@anthropic-ai/sdk',
        () => import('@anthropic-ai/sdk'),
      );
      const client = new Anthropic({ apiKey, ...(setup.baseUrl ? { baseURL: setup.baseUrl } : {}) });
      const adapter = anthropicMessages(client, { model, stream, ...(system ? { system } : {}) });
      return { adapter: adapter as ModelAdapter<unknown>, url: setup.baseUrl ?? DEFAULT_URLS.anthropic };
    }
    case 'gemini': {
      const apiKey = io.env.GEMINI_API_KEY || io.env.GOOGLE_API_KEY || need('GEMINI_API_KEY');
      const { GoogleGenAI } = await loadPackage<typeof import('@google/genai')>(
        '@google/genai',
        () => import('@google/genai'),
      );
      const client = new GoogleGenAI({
        apiKey,
        ...(setup.baseUrl ? { httpOptions: { baseUrl: setup.baseUrl } } : {}),
      });
      const adapter = geminiGenerate(client, { model, stream, ...(system ? { system } : {}) });
      return { adapter: adapter as ModelAdapter<unknown>, url: setup.baseUrl ?? DEFAULT_URLS.gemini };
    }
    default: {
      const exhaustive: never = provider;
      throw new UsageError(`Unknown provider ${String(exhaustive)}.`);
    }
  }
}

/** A Chat Completions adapter whose transcript starts with a system message (that API has no other slot). */
function withSystem<Message>(
  adapter: ModelAdapter<Message>,
  system: string | undefined,
): ModelAdapter<Message> {
  if (!system) return adapter;
  const head = { role: 'system', content: system } as Message;
  return {
    ...adapter,
    generate: (request) => adapter.generate({ ...request, messages: [head, ...request.messages] }),
  };
}

async function loadPackage<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch {
    throw new UsageError(
      `This provider needs the "${name}" package, which is not installed: npm install ${name}`,
    );
  }
}
