import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { sanitizeMessage } from '../dispatch/sanitize.js';
import { ToolDefinitionError } from '../errors/index.js';
import { sharedSchemaValidator } from './schema-validator.js';

/** Where an MCP server is: a command to start (stdio), a URL (Streamable HTTP), or a transport of yours. */
export type McpServerTarget =
  | {
      /** The executable, e.g. `node` or `npx`. */
      readonly command: string;
      readonly args?: readonly string[];
      /** The child's environment. By default only a safe subset of ours (the SDK's default). */
      readonly env?: { readonly [name: string]: string };
      readonly cwd?: string;
    }
  | {
      readonly url: string | URL;
      /** Extra request headers, e.g. `Authorization`. */
      readonly headers?: { readonly [name: string]: string };
    }
  | { readonly transport: Transport };

/** A connected client and the little we keep about the connection. */
export interface McpConnection {
  readonly client: Client;
  /** The last lines the server wrote to stderr (stdio only), for error messages. */
  readonly stderrTail: () => string;
  close(): Promise<void>;
}

const STDERR_TAIL = 2_000;

/**
 * Connects an SDK `Client` to an MCP server. The client validates `structuredContent` with the
 * shared draft 2020-12 ajv, so servers that publish 2020-12 output schemas are understood.
 * A server that cannot be started or reached throws {@link ToolDefinitionError} (`invalid_option`)
 * saying what was tried and what the server said.
 *
 * @example
 * const { client, close } = await connectMcpServer({ command: 'node', args: ['server.js'] });
 */
export async function connectMcpServer(
  target: McpServerTarget,
  clientInfo: { readonly name: string; readonly version: string } = { name: 'toolpact', version: '0.1.0' },
): Promise<McpConnection> {
  let tail = '';
  let transport: Transport;
  let what: string;
  if ('transport' in target) {
    transport = target.transport;
    what = 'the given transport';
  } else if ('url' in target) {
    const url = typeof target.url === 'string' ? safeUrl(target.url) : target.url;
    // Loaded only when used: the HTTP client stack is most of the SDK's load time.
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    transport = new StreamableHTTPClientTransport(url, {
      ...(target.headers ? { requestInit: { headers: { ...target.headers } } } : {}),
    });
    what = `the MCP server at ${url.origin}${url.pathname}`;
  } else {
    if (typeof target.command !== 'string' || target.command.trim() === '') {
      throw new ToolDefinitionError('invalid_option', 'Give the command that starts the MCP server.');
    }
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const stdio = new StdioClientTransport({
      command: target.command,
      args: [...(target.args ?? [])],
      ...(target.env ? { env: { ...target.env } } : {}),
      ...(target.cwd ? { cwd: target.cwd } : {}),
      stderr: 'pipe',
    });
    // Drain the child's stderr (a full pipe would block it) and keep its end for error messages.
    stdio.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    transport = stdio;
    what = `the MCP server started by "${[target.command, ...(target.args ?? [])].join(' ')}"`;
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client(
    { name: clientInfo.name, version: clientInfo.version },
    { capabilities: {}, jsonSchemaValidator: sharedSchemaValidator() },
  );
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    const said = tail.trim()
      ? ` It wrote: ${sanitizeMessage(tail.trim().split('\n').slice(-5).join(' | '))}`
      : '';
    throw new ToolDefinitionError(
      'invalid_option',
      `Could not connect to ${what}: ${sanitizeMessage(reason)}.${said} Check the command or URL, and that it speaks MCP.`,
      undefined,
      { cause: error },
    );
  }
  return {
    client,
    stderrTail: () => tail,
    close: () => client.close(),
  };
}

function safeUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolDefinitionError(
      'invalid_option',
      `"${text}" is not a URL; give e.g. http://127.0.0.1:3000/mcp.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolDefinitionError('invalid_option', `"${text}" is not an http(s) URL.`);
  }
  return url;
}
