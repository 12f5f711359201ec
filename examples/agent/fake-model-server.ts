/**
 * A local stand-in for an OpenAI-compatible server (the Chat Completions endpoint of Ollama, vLLM,
 * llama.cpp's server): it listens on 127.0.0.1 and answers each request from a script, in the documented
 * wire format, streamed (server-sent `chat.completion.chunk` events) or not. The example and the tests use
 * it so that a whole loop runs without a key and without a network.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message of the transcript the server receives. */
export interface ChatMessage {
  readonly role: string;
  readonly content?: string | null;
  readonly tool_call_id?: string;
  readonly tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[];
}

/** What the script sees of one request. */
export interface ScriptRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly { function: { name: string } }[];
  readonly model: string;
}

/** The model's turn: text, tool calls (arguments as an object or a raw string), or both. */
export interface ScriptedTurn {
  readonly text?: string;
  readonly calls?: readonly { readonly name: string; readonly arguments: unknown }[];
}

export type ConversationScript = (request: ScriptRequest) => ScriptedTurn;

export interface FakeModelServer {
  /** The base URL to give the client, ending in `/v1`. */
  readonly baseURL: string;
  /** Every request body received, in order. */
  readonly requests: readonly Record<string, unknown>[];
  readonly close: () => Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 (a free port unless one is given).
 *
 * @example
 * const server = await startFakeModelServer(workspaceConversation);
 * const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'none' });
 */
export async function startFakeModelServer(script: ConversationScript, port = 0): Promise<FakeModelServer> {
  const requests: Record<string, unknown>[] = [];
  let served = 0;
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && path === '/v1/models') {
      return json(response, 200, {
        object: 'list',
        data: [{ id: 'scripted', object: 'model', owned_by: 'toolpact' }],
      });
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      return json(response, 404, {
        error: { message: `No route for ${request.method} ${path}`, type: 'invalid_request_error' },
      });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    } catch {
      return json(response, 400, {
        error: { message: 'The body is not JSON.', type: 'invalid_request_error' },
      });
    }
    requests.push(body);
    const messages = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [];
    const tools = Array.isArray(body.tools) ? (body.tools as ScriptRequest['tools']) : [];
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    const turn = script({ messages, tools, model });
    const id = `chatcmpl-fake-${++served}`;
    const calls = (turn.calls ?? []).map((call, index) => ({
      id: `call_${served}_${index + 1}`,
      type: 'function' as const,
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
    }));
    const usage = {
      prompt_tokens: Math.ceil(JSON.stringify(messages).length / 4),
      completion_tokens: Math.ceil(((turn.text ?? '').length + JSON.stringify(calls).length) / 4),
    };
    const totals = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const finish = calls.length > 0 ? 'tool_calls' : 'stop';
    const created = Math.floor(Date.now() / 1000);
    if (body.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: object, finishReason: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
      let text = chunk({ role: 'assistant', content: '' });
      for (const word of (turn.text ?? '').match(/\S+\s*/g) ?? []) text += chunk({ content: word });
      for (const [index, call] of calls.entries()) {
        text += chunk({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
          ],
        });
        text += chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
      }
      text += chunk({}, finish);
      const withUsage =
        (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      if (withUsage)
        text += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: totals })}\n\n`;
      response.end(`${text}data: [DONE]\n\n`);
      return;
    }
    json(response, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.text ?? null,
            refusal: null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      usage: totals,
    });
  }
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** The envelopes of the tool messages since the model's last turn, by the name of the tool called. */
function lastResults(
  messages: readonly ChatMessage[],
): Map<string, { ok: boolean; result?: unknown; error?: { type: string } }> {
  const results = new Map<string, { ok: boolean; result?: unknown; error?: { type: string } }>();
  const assistant = messages.findLast((message) => message.role === 'assistant');
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    const call = assistant?.tool_calls?.find((entry) => entry.id === message.tool_call_id);
    if (call) results.set(call.function.name, JSON.parse(message.content ?? 'null'));
  }
  return results;
}

/**
 * The conversation the example plays on the workspace tools: look around (two calls at once), then,
 * when the task asks for a note, write one (the gate asks first), then answer from what the tools said.
 */
export const workspaceConversation: ConversationScript = ({ messages }) => {
  const task = messages.find((message) => message.role === 'user')?.content ?? '';
  const turns = messages.filter((message) => message.role === 'assistant').length;
  if (turns === 0) {
    return {
      text: 'I will look at the workspace first.',
      calls: [
        { name: 'list_dir', arguments: {} },
        { name: 'read_file', arguments: { path: 'docs/guide.md' } },
      ],
    };
  }
  const results = lastResults(messages);
  if (turns === 1 && /\bnote\b/i.test(task)) {
    const guide = results.get('read_file')?.result as { content?: string } | undefined;
    const firstLine =
      guide?.content?.split('\n').find((line) => line.trim() !== '' && !line.startsWith('#')) ?? '';
    return {
      calls: [
        { name: 'write_file', arguments: { path: 'notes/guide-summary.md', content: `${firstLine}\n` } },
      ],
    };
  }
  if (turns === 1) {
    const listing = results.get('list_dir')?.result as { entries?: { name: string }[] } | undefined;
    const guide = results.get('read_file')?.result as { content?: string } | undefined;
    const names = listing?.entries?.map((entry) => entry.name).join(', ') ?? 'nothing I could list';
    const line =
      guide?.content?.split('\n').find((text) => text.trim() !== '' && !text.startsWith('#')) ?? 'nothing';
    return { text: `The workspace holds ${names}. The guide says: ${line}` };
  }
  const written = results.get('write_file');
  return {
    text: written?.ok
      ? 'I saved the summary in notes/guide-summary.md.'
      : `I could not save the note (${written?.error?.type ?? 'no result'}).`,
  };
};
