import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough, type Stream } from 'node:stream';
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  SdkError,
  SdkErrorCode,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import {
  adoptProcessGroup,
  endProcessGroup,
  processGroupAlive,
  refusingProcessGroups,
  TERM_GRACE_MS,
} from '../util/process-group.js';

/** What starts a stdio MCP server: the SDK's `StdioServerParameters`, as far as toolpact uses them. */
export interface StdioServerParameters {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the SDK's safe subset of this process's environment. */
  readonly env?: { readonly [name: string]: string };
  readonly cwd?: string;
  /** `pipe` to read the server's stderr (see {@link ProcessGroupStdioTransport.stderr}); default `inherit`. */
  readonly stderr?: 'pipe' | 'ignore' | 'inherit';
}

/**
 * After its stdin closes, how long a server is given to exit before its group is sent SIGTERM. With the
 * grace below, a closing gateway ends its servers before its own client's SIGTERM (2 s after stdin).
 */
export const STDIN_GRACE_MS = 1_000;

/** The longest line (one JSON-RPC message) read from a server's stdout by default: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** A notification as it arrives, parsed as JSON but not yet validated by the MCP client. */
export interface InboundNotification {
  readonly method: string;
  readonly params: unknown;
}

/**
 * Says whether a notification goes on to the MCP client (true) or is dropped here (false), before the
 * client validates it. Requests and responses are never screened.
 */
export type NotificationScreen = (notification: InboundNotification) => boolean;

/** How a {@link ProcessGroupStdioTransport} reads its server's stdout. */
export interface StdioReadOptions {
  /**
   * The longest line, in bytes. A server that writes more without a newline breaks the protocol: the
   * connection is closed and {@link ProcessGroupStdioTransport.closeReason} says why. Default 16 MiB.
   */
  readonly maxLineBytes?: number;
  /** Consulted for each notification the server sends, before the MCP client parses it. */
  readonly screen?: NotificationScreen;
}

/**
 * The notification a parsed JSON-RPC line is, or undefined when it is anything else. Only an object
 * with a string `method` and no `id` at all is one: a request (which has an `id`, even null) or a
 * response is never taken for a notification, whatever strings its payload holds.
 *
 * @example
 * inboundNotification(JSON.parse('{"jsonrpc":"2.0","method":"notifications/message","params":{}}'));
 * // { method: 'notifications/message', params: {} }
 */
export function inboundNotification(value: unknown): InboundNotification | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (Object.hasOwn(value, 'id') || !Object.hasOwn(value, 'method')) return undefined;
  const { method, params } = value as { method: unknown; params?: unknown };
  return typeof method === 'string' ? { method, params } : undefined;
}

/**
 * The stdio client transport of the v2 SDK, except that the server runs in a process group of its own,
 * and ending the server ends the group: grandchildren included, SIGTERM to the group and SIGKILL after
 * a short grace. `close()` closes the server's stdin first (as MCP asks), `_dispose()` (the SDK's
 * reaper of the probe's short-lived process) signals at once; a server that exits by itself has what
 * it leaves behind ended too; and whatever group is still live when this process exits is killed.
 *
 * The fields the SDK reads to run its era probe in a sibling process (`_serverParams`, `_dispose`) are
 * kept, so the probe's process is a group of its own, built with this class, and ended the same way.
 *
 * Its stdout is read with bounded memory: each line is parsed once, a notification the `screen`
 * refuses is dropped before the MCP client validates it (which is what a flood of them costs), and a
 * line longer than `maxLineBytes` closes the connection rather than grow a buffer.
 *
 * @example
 * const transport = new ProcessGroupStdioTransport({ command: 'node', args: ['server.js'], stderr: 'pipe' });
 * await client.connect(transport);
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Read by the SDK (as on its own stdio transport) to start the probe's sibling with the same command. */
  readonly _serverParams: StdioServerParameters;
  #child: ChildProcess | undefined;
  #closing = false;
  /** The start of a line not ended yet: the pieces, and their length in bytes. */
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #closeReason: string | undefined;
  readonly #maxLineBytes: number;
  readonly #screen: NotificationScreen | undefined;
  readonly #stderr: PassThrough | null;

  constructor(server: StdioServerParameters, options: StdioReadOptions = {}) {
    this._serverParams = server;
    this.#stderr = server.stderr === 'pipe' ? new PassThrough() : null;
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(
        `maxLineBytes must be a positive whole number of bytes; received ${String(maxLineBytes)}. Leave it out for ${DEFAULT_MAX_LINE_BYTES}.`,
      );
    }
    this.#maxLineBytes = maxLineBytes;
    this.#screen = options.screen;
  }

  /** Why this side closed the connection (a protocol error of the server), or undefined. */
  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  /** The server's stderr with `stderr: 'pipe'`, readable before `start()`; otherwise null. */
  get stderr(): Stream | null {
    return this.#stderr;
  }

  /** The server's pid, which is also its process group's id; null before start and after close. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error('ProcessGroupStdioTransport already started.'));
    if (refusingProcessGroups()) {
      return Promise.reject(new Error('this process is shutting down, so the server was not started'));
    }
    const server = this._serverParams;
    return new Promise((resolve, reject) => {
      const child = spawn(server.command, [...(server.args ?? [])], {
        env: { ...getDefaultEnvironment(), ...server.env },
        stdio: ['pipe', 'pipe', server.stderr === 'pipe' ? 'pipe' : (server.stderr ?? 'inherit')],
        cwd: server.cwd,
        shell: false,
        // Its own process group (setsid), so that the server and everything it starts end together.
        detached: true,
      });
      this.#child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        if (child.pid !== undefined) adoptProcessGroup(child.pid);
        // A group that was just adopted by a process already ending is ended at once.
        if (refusingProcessGroups() && child.pid !== undefined) void endProcessGroup(child.pid, 0);
        resolve();
      });
      child.on('exit', () => {
        // A server that exits by itself may leave children behind (holding its pipes, too).
        if (!this.#closing && child.pid !== undefined) void endProcessGroup(child.pid, TERM_GRACE_MS);
      });
      child.on('close', () => {
        if (this.#child === child) this.#child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#read(child, chunk));
      if (this.#stderr && child.stderr) child.stderr.pipe(this.#stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin) {
        reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Ends the server as MCP asks: closes its stdin, waits up to {@link STDIN_GRACE_MS} for it to exit,
   * then ends its whole group (SIGTERM, SIGKILL after {@link TERM_GRACE_MS}). Grandchildren are ended
   * even when the server itself exits on stdin's close.
   */
  async close(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child) {
      this.#closing = true;
      const exited = exitOf(child);
      try {
        child.stdin?.end();
      } catch {
        // Already closed.
      }
      await Promise.race([exited, delay(STDIN_GRACE_MS)]);
      await this.#endGroup(child);
    }
    this.#clearPartial();
  }

  /**
   * The SDK's reaper of its probe's sibling process (the name is the SDK's): ends the group at once,
   * awaiting exit rather than the pipes' close.
   *
   * @internal
   */
  async _dispose(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child) {
      this.#closing = true;
      try {
        child.stdin?.end();
      } catch {
        // Already closed.
      }
      await this.#endGroup(child);
      for (const stream of [child.stdout, child.stdin, child.stderr]) stream?.destroy();
    }
    this.#clearPartial();
  }

  async #endGroup(child: ChildProcess): Promise<void> {
    if (child.pid === undefined) return;
    const exited = exitOf(child);
    await endProcessGroup(child.pid, TERM_GRACE_MS);
    // The leader is this process's child, reaped as it exits: once the group is gone, its exit follows.
    if (!processGroupAlive(child.pid)) await exited;
  }

  /**
   * Splits a chunk of stdout into lines, each handled before the next chunk is read: nothing queues
   * here, so a server that writes faster than the messages are handled waits on its full pipe.
   */
  #read(child: ChildProcess, chunk: Buffer): void {
    let start = 0;
    while (this.#child === child) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) break;
      if (this.#partialBytes + (end - start) > this.#maxLineBytes) {
        this.#tooLong(end - start);
        return;
      }
      let line = chunk.subarray(start, end);
      if (this.#partial.length > 0) {
        line = Buffer.concat([...this.#partial, line], this.#partialBytes + line.length);
        this.#clearPartial();
      }
      start = end + 1;
      this.#line(line);
    }
    if (this.#child !== child || start === chunk.length) return;
    const rest = chunk.length - start;
    if (this.#partialBytes + rest > this.#maxLineBytes) {
      this.#tooLong(rest);
      return;
    }
    // A copy, so that a short tail does not hold its whole chunk.
    this.#partial.push(Buffer.from(chunk.subarray(start)));
    this.#partialBytes += rest;
  }

  #line(bytes: Buffer): void {
    const text = bytes.toString(
      'utf8',
      0,
      bytes.at(-1) === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length,
    );
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON (a server printing to stdout): skipped, as the SDK's own stdio transport does.
      return;
    }
    const notification = this.#screen ? inboundNotification(value) : undefined;
    if (notification && !this.#screen?.(notification)) return;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  #tooLong(received: number): void {
    this.#closeReason = `it wrote a line of more than ${this.#maxLineBytes} bytes (${this.#partialBytes + received} read of it); MCP over stdio is one JSON-RPC message per line, so the connection was closed. Check that the server writes nothing but JSON-RPC to stdout, or raise maxLineBytes if its messages are that big`;
    this.#clearPartial();
    this.onerror?.(new Error(`The MCP server ${this.#closeReason}.`));
    this.close().catch(() => {});
  }

  #clearPartial(): void {
    this.#partial = [];
    this.#partialBytes = 0;
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
