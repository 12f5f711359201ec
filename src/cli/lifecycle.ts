import type { Registry } from '../registry/registry.js';
import type { CliIo } from './io.js';

/**
 * How long a command waits for what it loaded to close before it goes on without it: long enough to end
 * a stdio MCP server however stubborn (its stdin is closed, its process group is sent SIGTERM after 1 s
 * and SIGKILL 0.5 s later), short enough that a resource whose close never settles cannot hang the
 * command. A server's group still live when the process exits is killed then.
 */
export const CLOSE_GRACE_MS = 5_000;

/** Something a command closes when it is done: a registry, a studio, a server. */
export interface Closable {
  close?: () => unknown;
}

/**
 * Closes `resource` (a loaded registry, with everything attached to it), waiting at most `graceMs`.
 * Never throws: a close that fails or does not finish in time is told on stderr, and the command keeps
 * its exit code (its output is complete by then). A registry from another copy of toolpact without
 * `close()` is left as it is.
 *
 * @example
 * const registry = await loadRegistry(modulePath, io.cwd);
 * try { … } finally { await closeWithin(registry, io, 'lint'); }
 */
export async function closeWithin(
  resource: Closable | undefined,
  io: Pick<CliIo, 'stderr'>,
  command: string,
  what = "the module's tools",
  graceMs = CLOSE_GRACE_MS,
): Promise<void> {
  if (!resource || typeof resource.close !== 'function') return;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), graceMs);
  });
  try {
    const closing = Promise.resolve()
      .then(() => resource.close?.())
      .then(() => 'closed' as const);
    const outcome = await Promise.race([closing, expired]);
    if (outcome === 'expired') {
      // The close goes on in the background; a failure it reports later is of no use to anyone.
      closing.catch(() => {});
      io.stderr(
        `toolpact ${command}: ${what} did not finish closing within ${graceMs / 1000} s (an MCP connection, a database, or something given to registry.own() whose close never settles); going on without waiting. Make that close() settle, or do not attach it to the registry.\n`,
      );
    }
  } catch (error) {
    io.stderr(`toolpact ${command}: closing ${what} failed: ${describe(error)}. ${ADVICE}\n`);
  } finally {
    clearTimeout(timer);
  }
}

const ADVICE =
  'The output above is complete; check the close() of what the module attaches to its registry (registry.own, importMcpTools).';

// A RegistryCloseError's message already lists each failure.
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Attaches the module's registry to the registry the CLI builds over its tools (with the CLI's gate and
 * audit log), so that closing the CLI's registry closes the module's too, with its MCP connections. A
 * registry from another copy of toolpact without `close()` is not attached.
 *
 * @example
 * const registry = ownLoaded(new Registry(gate.registryOptions), loaded).register(loaded.list());
 */
export function ownLoaded(registry: Registry, loaded: Registry): Registry {
  if (loaded !== registry && typeof loaded.close === 'function') registry.own(loaded);
  return registry;
}
