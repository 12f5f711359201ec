import type { AnyTool } from '../contract/tool.js';
import type { Registry } from '../registry/registry.js';
import type { PlannedTool } from './plan-tools.js';

/**
 * The gateway's part of its registry: registers what a plan serves, in the plan's order, and
 * unregisters what it no longer does. A tool whose plan is the same (an equal key) keeps the tool
 * already built, so a re-listing that changes nothing changes nothing for clients; when the order
 * changes, the tools from the first one out of place are registered again, in order.
 *
 * @example
 * const served = new ServedRegistry(registry, log);
 * served.sync(plan.tools, (planned) => servedTool(planned, spec, context), (planned, reason) => log(reason));
 */
export class ServedRegistry {
  readonly #registry: Registry;
  readonly #log: (line: string) => void;
  // The local name each served tool is registered under, with what it was built from.
  readonly #built = new Map<
    string,
    { readonly key: string; readonly server: string; readonly tool: AnyTool }
  >();
  // Tools that could not be built, by name: the same key fails the same way, so it is not built again.
  readonly #failed = new Map<string, { readonly key: string; readonly reason: string }>();

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
    return this.#gatewayNames().filter((name) => this.#built.get(name)?.server === server);
  }

  /**
   * Makes the registry hold exactly the planned tools, in the plan's order: what changed is replaced,
   * what is gone is unregistered. A tool that cannot be built (`make` throws) is left out and told to
   * `failed`, at every sync.
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
    const serving: { planned: PlannedTool; tool: AnyTool }[] = [];
    for (const want of planned) {
      const known = this.#failed.get(want.name);
      if (known?.key === want.key) {
        failed(want, known.reason);
        continue;
      }
      this.#failed.delete(want.name);
      const built = this.#built.get(want.name)?.tool;
      if (built) {
        serving.push({ planned: want, tool: built });
        continue;
      }
      try {
        serving.push({ planned: want, tool: make(want) });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.#log(`${want.server}: the tool "${want.name}" cannot be served: ${reason}`);
        this.#failed.set(want.name, { key: want.key, reason });
        failed(want, reason);
      }
    }
    // What is registered in order stays; from the first tool out of place on, all are registered again.
    const current = this.#gatewayNames();
    let inPlace = 0;
    while (inPlace < serving.length && serving[inPlace]?.planned.name === current[inPlace]) inPlace++;
    for (const name of current.slice(inPlace)) this.#registry.unregister(name);
    for (const { planned: want, tool } of serving.slice(inPlace)) {
      if (this.#registry.has(want.name)) {
        this.#log(`${want.server}: the tool "${want.name}" is already registered; it is not served.`);
        this.#built.delete(want.name);
        continue;
      }
      this.#registry.register(tool);
      this.#built.set(want.name, { key: want.key, server: want.server, tool });
    }
  }

  #gatewayNames(): string[] {
    return this.#registry
      .list()
      .map((tool) => tool.contract.name)
      .filter((name) => this.#built.has(name));
  }
}
