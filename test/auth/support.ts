import { type ChildProcess, spawn } from 'node:child_process';
import { ROOT } from '../mcp/support/wire.js';
import { toolpactArgs } from '../support/cli-build.js';

const VERSION = '2026-07-28';

/** A revision 2026-07-28 `tools/call` of `name`, raw, with the given Authorization header. */
export async function call(
  url: string,
  name: string,
  authorization?: string,
  args: Record<string, unknown> = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    }),
  });
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate') ?? '',
    body: await response.text(),
  };
}

/** The last JSON-RPC message of a JSON or SSE body. */
export function lastMessage(body: string): { result?: Record<string, unknown> } {
  const lines = body.includes('data: ')
    ? body
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
    : [body];
  return JSON.parse(lines.at(-1)!);
}

/** The envelope of a `tools/call` answer, read from its body. */
export function envelopeIn(body: string): {
  ok: boolean;
  result?: unknown;
  error?: { type: string; approval?: string; message?: string };
} {
  const result = lastMessage(body).result as { content: { text: string }[] };
  return JSON.parse(result.content[0]!.text);
}

/**
 * Spawns `toolpact serve <module> …args` from the project root, resolving once it prints its
 * endpoint; `stop` sends SIGTERM and answers the exit code.
 */
export async function spawnServe(
  module: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
) {
  const child: ChildProcess = spawn(process.execPath, toolpactArgs('serve', module, ...args), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / at (http:\/\/[^ ]+\/mcp) \(/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
