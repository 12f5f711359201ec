import type { AnyTool } from '../define/tool.js';
import type { Registry } from '../registry/registry.js';
import type { PlannedTool } from './plan-tools.js';

/**
 * The gateway's part of its registry: registers what a plan serves and unregisters what it no longer
 * does. A tool whose plan is the same (an equal key) stays registered as it is, so a re-listing that
 * changes nothing changes nothing for clients.
 *
 * @example
 * const served = new ServedRegistry(registry);
 * served.sync(plan.tools, (planned) => servedTool(planned, spec, context), (planned, reason) => log(reason));
 */
export class ServedRegistry {
  readonly #registry: Registry;
  readonly #log: (line: string) => void;
  // The local name each served tool is registered under, with what it was built from.
  readonly #built = new Map<string, { readonly key: string; readonly server: string }>();

  constructor(registry: Registry, log: (line: string) => void) {
    this.#registry = registry;
    this.#log = log;
  }

  /** The registered names that are not the gateway's (a name a server's tool never takes). */
  reserved(): string[] {
    return this.#registry
      .list()
      .map((tool) => tool.contract.name)
      .filter((name) => !this.#built.has(name));
  }

  /** The local names the gateway registered for a server, in registration order. */
  namesOf(server: string): string[] {
    return [...this.#built].filter(([, tool]) => tool.server === server).map(([name]) => name);
  }

  /**
   * Makes the registry hold exactly the planned tools: what changed is replaced, what is gone is
   * unregistered. A tool that cannot be built (`make` throws) is left out and told to `failed`.
   */
  sync(
    planned: readonly PlannedTool[],
    make: (tool: PlannedTool) => AnyTool,
    failed: (tool: PlannedTool, reason: string) => void,
  ): void {
    const wanted = new Map(planned.map((tool) => [tool.name, tool]));
    for (const [name, was] of this.#built) {
      const now = wanted.get(name);
      if (!now || now.key !== was.key) {
        this.#registry.unregister(name);
        this.#built.delete(name);
      }
    }
    for (const want of planned) {
      const name = want.name;
      if (this.#built.has(name)) continue;
      let tool: AnyTool;
      try {
        tool = make(want);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.#log(`${want.server}: the tool "${name}" cannot be served: ${reason}`);
        failed(want, reason);
        continue;
      }
      if (this.#registry.has(name)) {
        this.#log(`${want.server}: the tool "${name}" is already registered; it is not served.`);
        continue;
      }
      this.#registry.register(tool);
      this.#built.set(name, { key: want.key, server: want.server });
    }
  }
}
