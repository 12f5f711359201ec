import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  defineTool,
  isErrorType,
  type OwnedResource,
  Registry,
  RegistryCloseError,
  ToolDefinitionError,
} from '../../src/index.js';
import { importMcpTools } from '../../src/mcp/index.js';
import { isServerMemoryAlive, serverMemoryTarget } from '../support/server-memory.js';

const echo = defineTool({
  name: 'echo',
  description: 'Return the text unchanged.',
  category: 'read',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const,
  execute: ({ text }) => text,
});

/** Resources of each kind `own` takes, each writing its name to `log` when released. */
function resources(log: string[]) {
  return {
    closer: { close: () => void log.push('close()') },
    asyncDisposable: {
      [Symbol.asyncDispose]: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push('asyncDispose');
      },
    },
    disposable: { [Symbol.dispose]: () => void log.push('dispose') },
    release: () => void log.push('function'),
  };
}

describe('registry.own and registry.close', () => {
  test('close releases every kind of resource once, the last attached first, and says closed', async () => {
    const log: string[] = [];
    const { closer, asyncDisposable, disposable, release } = resources(log);
    const registry = new Registry().register(echo);
    expect(registry.own(closer)).toBe(closer);
    registry.own(asyncDisposable);
    registry.own(disposable);
    registry.own(release);
    expect(registry.closed).toBe(false);
    await registry.close();
    expect(log).toEqual(['function', 'dispose', 'asyncDispose', 'close()']);
    expect(registry.closed).toBe(true);
  });

  test('closing twice answers the first close and releases nothing again', async () => {
    let releases = 0;
    const registry = new Registry();
    registry.own(() => {
      releases++;
    });
    const first = registry.close();
    expect(registry.close()).toBe(first);
    await first;
    await registry.close();
    expect(releases).toBe(1);
  });

  test('a call that starts after close answers registry_closed, through call and dispatch; one running finishes', async () => {
    let finish: (value: string) => void = () => {};
    const slow = defineTool({
      name: 'slow',
      description: 'Answers when the test says so.',
      category: 'read',
      execute: () => new Promise<string>((resolve) => (finish = resolve)),
    });
    const registry = new Registry().register(echo, slow);
    const running = registry.call('slow', {});
    await registry.close();
    finish('done');
    expect(await running).toEqual({ ok: true, result: 'done' });

    const envelope = await registry.call('echo', { text: 'late' });
    expect(isErrorType(envelope, 'registry_closed')).toBe(true);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'registry_closed', tool: 'echo' } });
    if (!envelope.ok) expect(envelope.error.message).toMatch(/closed.*Do not retry/s);
    const text = await registry.dispatch('echo', '{"text":"late"}');
    expect(JSON.parse(text)).toEqual(envelope);
    // Even a name that was never registered: the registry is gone, not the tool.
    expect(JSON.parse(await registry.dispatch('nope', '{}')).error.type).toBe('registry_closed');
  });

  test('await using closes the registry, and what it owns, at the end of the scope', async () => {
    const log: string[] = [];
    let outside: Registry | undefined;
    {
      await using registry = new Registry().register(echo);
      outside = registry;
      registry.own(() => void log.push('released'));
      expect(log).toEqual([]);
    }
    expect(log).toEqual(['released']);
    expect(outside.closed).toBe(true);
  });

  test('a resource that fails to close lets the others close; close rejects with RegistryCloseError', async () => {
    const log: string[] = [];
    const registry = new Registry();
    registry.own(() => void log.push('first'));
    registry.own({
      close: () => {
        throw new Error('the disk is gone');
      },
    });
    registry.own(() => void log.push('middle'));
    registry.own({ [Symbol.asyncDispose]: () => Promise.reject(new Error('the socket hung up')) });
    registry.own(() => void log.push('last'));
    const error = await registry.close().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(log).toEqual(['last', 'middle', 'first']);
    expect(error).toBeInstanceOf(RegistryCloseError);
    expect(error).toBeInstanceOf(AggregateError);
    const closeError = error as RegistryCloseError;
    expect(closeError.name).toBe('RegistryCloseError');
    expect(closeError.errors.map((inner) => (inner as Error).message)).toEqual([
      'the socket hung up',
      'the disk is gone',
    ]);
    expect(closeError.message).toContain('2 of 5');
    expect(closeError.message).toContain('the disk is gone');
    // The second close answers the same failure, and releases nothing again.
    await expect(registry.close()).rejects.toBe(closeError);
    expect(log).toHaveLength(3);
  });

  test('a subset is closed with its parent: its calls answer registry_closed', async () => {
    const parent = new Registry().register(echo);
    const delegate = parent.subset(['echo']);
    expect(await delegate.call('echo', { text: 'before' })).toEqual({ ok: true, result: 'before' });
    await parent.close();
    expect(delegate.closed).toBe(true);
    expect(isErrorType(await delegate.call('echo', { text: 'after' }), 'registry_closed')).toBe(true);
  });

  test('own() on a closed registry releases the resource at once', async () => {
    const registry = new Registry();
    await registry.close();
    let released = false;
    const resource = {
      close: async () => {
        released = true;
      },
    };
    expect(registry.own(resource)).toBe(resource);
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(true);
  });

  test('disown detaches a resource without releasing it', async () => {
    const log: string[] = [];
    const kept = () => void log.push('kept');
    const released = () => void log.push('released');
    const registry = new Registry();
    registry.own(kept);
    registry.own(released);
    expect(registry.disown(kept)).toBe(true);
    expect(registry.disown(kept)).toBe(false);
    expect(registry.disown(() => {})).toBe(false);
    await registry.close();
    expect(log).toEqual(['released']);
  });

  test('own() refuses what it cannot release, saying what it received', () => {
    const registry = new Registry();
    for (const value of [null, 42, 'close', {}, { close: 'now' }]) {
      let error: unknown;
      try {
        registry.own(value as unknown as OwnedResource);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ToolDefinitionError);
      expect((error as ToolDefinitionError).code).toBe('invalid_option');
      expect((error as Error).message).toMatch(/own\(\) received .*; give an object with close\(\)/);
    }
  });
});

describe('an MCP import is attached to its registry', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolpact-lifecycle-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('registry.close() closes the import: its tools are gone and its server process has ended', async () => {
    const registry = new Registry().register(echo);
    const imported = await importMcpTools(registry, serverMemoryTarget(join(dir, 'close.jsonl')), {
      name: 'memory',
    });
    const pid = (imported.client.transport as StdioClientTransport).pid;
    expect(pid).toEqual(expect.any(Number));
    expect(isServerMemoryAlive(pid!)).toBe(true);
    expect(imported.tools().map((tool) => tool.name)).toContain('read_graph');
    const graph = await registry.call('read_graph', {});
    expect(graph).toMatchObject({ ok: true });

    await registry.close();
    expect(registry.has('read_graph')).toBe(false);
    expect(imported.tools()).toEqual([]);
    expect(isServerMemoryAlive(pid!)).toBe(false);
    expect((await registry.call('read_graph', {})).ok).toBe(false);
    // The import's own close is idempotent: it answers at once, and closes nothing twice.
    await imported.close();
  });

  test('the import is attached when it succeeds; closing it first detaches it', async () => {
    const registry = new Registry().register(echo);
    const imported = await importMcpTools(registry, serverMemoryTarget(join(dir, 'first.jsonl')));
    expect(registry.disown(imported)).toBe(true);
    registry.own(imported);
    const first = imported.close();
    expect(imported.close()).toBe(first);
    await first;
    expect(registry.has('read_graph')).toBe(false);
    expect(registry.disown(imported)).toBe(false);
    await registry.close();
    expect(registry.has('echo')).toBe(true);
  });

  test('importing into a closed registry is refused before any server starts', async () => {
    const registry = new Registry();
    await registry.close();
    const error = await importMcpTools(registry, {
      command: process.execPath,
      args: ['-e', 'throw new Error("must not start")'],
    }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect((error as ToolDefinitionError).code).toBe('invalid_option');
    expect((error as Error).message).toContain('already closed');
    expect((error as Error).message).toContain('new Registry');
  });
});
