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

function validator(definition: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: false });
    addFormats(ajv);
    const schema = JSON.parse(readFileSync(join(CORPORA_DIR, 'mcp', 'schema-2025-11-25.json'), 'utf8'));
    ajv.addSchema(schema, 'mcp-2025-11-25');
  }
  const found = ajv.getSchema(`mcp-2025-11-25#/$defs/${definition}`);
  if (!found) throw new Error(`The MCP schema has no definition ${definition}`);
  return found;
}

const RESULT_OF: Record<string, string> = {
  initialize: 'InitializeResult',
  ping: 'Result',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'logging/setLevel': 'Result',
  'elicitation/create': 'ElicitResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
};

/**
 * Every message one side sent, checked against the MCP 2025-11-25 schema: requests and notifications
 * against the side's own unions (ClientRequest, ServerNotification, ...), results against the result
 * type of the request they answer. Returns one line per invalid message (empty when all are valid).
 */
export function invalidMessages(side: 'client' | 'server', recording: Recording): string[] {
  const own = side === 'client' ? 'Client' : 'Server';
  const requests = new Map<string | number, string>();
  for (const message of recording.received) {
    if ('method' in message && 'id' in message) requests.set(message.id, message.method);
  }
  const problems: string[] = [];
  for (const message of recording.sent) {
    let definitions: string[];
    if ('method' in message) {
      definitions =
        'id' in message ? ['JSONRPCRequest', `${own}Request`] : ['JSONRPCNotification', `${own}Notification`];
    } else if ('error' in message) {
      definitions = ['JSONRPCErrorResponse'];
    } else {
      const method = requests.get(message.id);
      const resultType = method === undefined ? `${own}Result` : (RESULT_OF[method] ?? `${own}Result`);
      definitions = ['JSONRPCResultResponse'];
      const check = validator(resultType);
      if (!check(message.result)) {
        problems.push(
          `${resultType}: ${ajv!.errorsText(check.errors)} in ${JSON.stringify(message).slice(0, 300)}`,
        );
      }
    }
    for (const definition of definitions) {
      const check = validator(definition);
      if (!check(message)) {
        problems.push(
          `${definition}: ${ajv!.errorsText(check.errors)} in ${JSON.stringify(message).slice(0, 300)}`,
        );
      }
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
