import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CORPORA_DIR } from '../../support/corpora.js';

/** Project root, from this file's location. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Real MCP servers the tests start as peers over stdio, from node_modules (no network). */
export const FILESYSTEM = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);
export const EVERYTHING = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

/** What went over one connection, in each direction. */
export interface Recording {
  readonly sent: JSONRPCMessage[];
  readonly received: JSONRPCMessage[];
}

/** Wraps a transport so that every message sent and received is kept (a copy, as it went). */
export function recordingTransport(inner: Transport): { transport: Transport; recording: Recording } {
  const recording: Recording = { sent: [], received: [] };
  const transport: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => {
      recording.sent.push(structuredClone(message));
      return inner.send(message, options);
    },
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    set onmessage(handler: Transport['onmessage']) {
      inner.onmessage = (message, extra) => {
        recording.received.push(structuredClone(message));
        handler?.(message, extra);
      };
    },
    set onclose(handler: Transport['onclose']) {
      inner.onclose = handler;
    },
    set onerror(handler: Transport['onerror']) {
      inner.onerror = handler;
    },
  };
  return { transport, recording };
}

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;
let ajv: Ajv2020 | undefined;

/** The MCP revisions whose wire schema the tests check messages against (test/corpora/mcp). */
export type WireRevision = '2025-11-25' | '2026-07-28';

function validator(revision: WireRevision, definition: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: false });
    addFormats(ajv);
    for (const known of ['2025-11-25', '2026-07-28'] as const) {
      const schema = JSON.parse(readFileSync(join(CORPORA_DIR, 'mcp', `schema-${known}.json`), 'utf8'));
      ajv.addSchema(schema, `mcp-${known}`);
    }
  }
  const found = ajv.getSchema(`mcp-${revision}#/$defs/${definition}`);
  if (!found) throw new Error(`The MCP ${revision} schema has no definition ${definition}`);
  return found;
}

const RESULT_OF: Record<WireRevision, Record<string, string>> = {
  '2025-11-25': {
    initialize: 'InitializeResult',
    ping: 'Result',
    'tools/list': 'ListToolsResult',
    'tools/call': 'CallToolResult',
    'logging/setLevel': 'Result',
    'elicitation/create': 'ElicitResult',
    'sampling/createMessage': 'CreateMessageResult',
    'roots/list': 'ListRootsResult',
  },
  '2026-07-28': {
    'server/discover': 'DiscoverResult',
    'tools/list': 'ListToolsResult',
    'tools/call': 'CallToolResult',
    'subscriptions/listen': 'SubscriptionsListenResult',
  },
};

/**
 * Every message one side sent, checked against the MCP wire schema of a revision (2025-11-25 unless
 * told): requests and notifications against the side's own unions (ClientRequest, ServerNotification,
 * ...), results against the result type of the request they answer (an `input_required` result
 * against InputRequiredResult). Returns one line per invalid message (empty when all are valid).
 */
export function invalidMessages(
  side: 'client' | 'server',
  recording: Recording,
  revision: WireRevision = '2025-11-25',
): string[] {
  const own = side === 'client' ? 'Client' : 'Server';
  const requests = new Map<string | number, string>();
  for (const message of recording.received) {
    if ('method' in message && 'id' in message) requests.set(message.id, message.method);
  }
  const problems: string[] = [];
  const check = (definition: string, value: unknown, message: unknown) => {
    const validate = validator(revision, definition);
    if (!validate(value)) {
      problems.push(
        `${definition}: ${ajv!.errorsText(validate.errors)} in ${JSON.stringify(message).slice(0, 300)}`,
      );
    }
  };
  for (const message of recording.sent) {
    if ('method' in message) {
      const definitions =
        'id' in message ? ['JSONRPCRequest', `${own}Request`] : ['JSONRPCNotification', `${own}Notification`];
      for (const definition of definitions) check(definition, message, message);
    } else if ('error' in message) {
      check('JSONRPCErrorResponse', message, message);
    } else {
      const method = requests.get(message.id);
      const result = message.result as { resultType?: unknown };
      const resultType =
        result.resultType === 'input_required'
          ? 'InputRequiredResult'
          : method === undefined
            ? `${own}Result`
            : (RESULT_OF[revision][method] ?? `${own}Result`);
      check(resultType, message.result, message);
      check('JSONRPCResultResponse', message, message);
    }
  }
  return problems;
}

/** The text of the first content block of a tools/call result. */
export function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  const block = content[0];
  if (block?.type !== 'text' || typeof block.text !== 'string')
    throw new Error('The result has no text block first');
  return block.text;
}

type WireMessage = Recording['sent'][number];

/** The JSON-RPC messages of one HTTP response body: one JSON message, or the `data:` lines of an SSE stream. */
export function responseMessages(contentType: string | null, raw: string): WireMessage[] {
  const lines = contentType?.startsWith('text/event-stream')
    ? raw
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
    : raw
      ? [raw]
      : [];
  return lines.map((line) => JSON.parse(line) as WireMessage);
}

/**
 * A `fetch` for an SDK Client's HTTP transport that records what the Client posts and what comes back
 * (JSON or SSE) into `into`, for the wire-schema check. Each response is read in the background; its
 * read goes into `pending`, which a test awaits before checking the recording.
 */
export function recordingFetch(into: Recording, pending: Promise<void>[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') into.sent.push(JSON.parse(init.body) as WireMessage);
    const response = await fetch(input, init);
    const copy = response.clone();
    pending.push(
      copy.text().then(
        (raw) => {
          into.received.push(...responseMessages(copy.headers.get('content-type'), raw));
        },
        () => {},
      ),
    );
    return response;
  };
}

let modernIds = 1;

/**
 * One revision 2026-07-28 request as raw JSON-RPC over HTTP, with the revision's headers and `_meta`
 * (the client declaring `capabilities`): its answer, the response with the request's id.
 */
export async function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: object,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }> {
  const id = modernIds++;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      // The revision's Mcp-Name: a tool's or prompt's name, a resource's URI.
      ...(typeof (params.name ?? params.uri) === 'string'
        ? { 'mcp-name': String(params.name ?? params.uri) }
        : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const messages = responseMessages(response.headers.get('content-type'), await response.text());
  const answer = messages.find((message) => (message as { id?: unknown }).id === id);
  if (!answer) throw new Error(`No answer to request ${id} (${method}); HTTP ${response.status}`);
  return answer as never;
}
