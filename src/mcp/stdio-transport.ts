import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough, type Stream } from 'node:stream';
import {
  type JSONRPCMessage,
  ReadBuffer,
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
  readonly #buffer = new ReadBuffer();
  readonly #stderr: PassThrough | null;

  constructor(server: StdioServerParameters) {
    this._serverParams = server;
    this.#stderr = server.stderr === 'pipe' ? new PassThrough() : null;
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
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.#buffer.append(chunk);
        } catch (error) {
          this.onerror?.(error as Error);
          this.close().catch(() => {});
          return;
        }
        this.#read();
      });
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
    this.#buffer.clear();
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
    this.#buffer.clear();
  }

  async #endGroup(child: ChildProcess): Promise<void> {
    if (child.pid === undefined) return;
    const exited = exitOf(child);
    await endProcessGroup(child.pid, TERM_GRACE_MS);
    // The leader is this process's child, reaped as it exits: once the group is gone, its exit follows.
    if (!processGroupAlive(child.pid)) await exited;
  }

  #read(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
