import type { Prompt } from '../define/define-prompt.js';
import type { Resource } from '../define/define-resource.js';
import type { Registry } from '../registry/registry.js';
import { SINGULAR } from './catalog.js';
import type { CatalogPlan, PlannedItem } from './plan-catalog.js';
import { servedPrompt } from './served-prompt.js';
import { ResourceUpdates, type ServedCatalogContext, servedResource } from './served-resource.js';

/** An item the gateway could not register, with why. */
export interface FailedItem {
  readonly server: string;
  readonly kind: PlannedItem['kind'];
  readonly key: string;
  readonly reason: string;
}

/**
 * The gateway's resources, templates and prompts in its registry: registers what a plan serves and
 * unregisters what it no longer does. An item whose plan is the same (an equal build key) stays as it
 * is, so a re-listing that changes nothing sends clients no `list_changed`.
 *
 * @example
 * const catalog = new ServedCatalog(registry, { upstream: (name) => servers.upstream(name) }, log);
 * catalog.sync(planCatalog(input));
 */
export class ServedCatalog {
  readonly #registry: Registry;
  readonly #context: ServedCatalogContext;
  readonly #log: (line: string) => void;
  // By registry key (a URI, a template, a prompt's served name): what each registered item was built from.
  readonly #resources = new Map<string, string>();
  readonly #prompts = new Map<string, string>();
  // Items that could not be built, by build key: the same one fails the same way, so it is not tried again.
  readonly #failed = new Map<string, FailedItem>();

  constructor(
    registry: Registry,
    context: Omit<ServedCatalogContext, 'updates'>,
    log: (line: string) => void,
  ) {
    this.#registry = registry;
    this.#context = { ...context, updates: new ResourceUpdates() };
    this.#log = log;
  }

  /** A server said a resource changed: every client subscribed to it is told. */
  updated(server: string, uri: string): void {
    this.#context.updates.updated(server, uri);
  }

  /** Makes the registry hold exactly the planned items; answers those that could not be registered. */
  sync(plan: CatalogPlan): FailedItem[] {
    const failed: FailedItem[] = [];
    this.#syncKind(
      [...plan.resources, ...plan.templates],
      this.#resources,
      (key) => this.#registry.unregisterResource(key),
      (planned) => this.#registry.registerResource(servedResource(planned as never, this.#context)),
      failed,
    );
    this.#syncKind(
      plan.prompts,
      this.#prompts,
      (key) => this.#registry.unregisterPrompt(key),
      (planned) =>
        this.#registry.registerPrompt(servedPrompt(planned as PlannedItem<'prompts'>, this.#context)),
      failed,
    );
    return failed;
  }

  /** The resources and prompts the gateway registered, for `status`. */
  registered(): { readonly resources: readonly Resource[]; readonly prompts: readonly Prompt[] } {
    return {
      resources: this.#registry.resources().filter((resource) => this.#resources.has(resource.key)),
      prompts: this.#registry.prompts().filter((prompt) => this.#prompts.has(prompt.name)),
    };
  }

  #syncKind(
    planned: readonly PlannedItem[],
    built: Map<string, string>,
    unregister: (key: string) => void,
    register: (planned: PlannedItem) => void,
    failed: FailedItem[],
  ): void {
    const wanted = new Map(planned.map((item) => [item.name, item]));
    for (const [key, buildKey] of built) {
      if (wanted.get(key)?.buildKey === buildKey) continue;
      unregister(key);
      built.delete(key);
    }
    for (const item of planned) {
      if (built.has(item.name)) continue;
      const known = this.#failed.get(item.buildKey);
      if (known) {
        failed.push(known);
        continue;
      }
      try {
        register(item);
        built.set(item.name, item.buildKey);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const failure = { server: item.server, kind: item.kind, key: item.key, reason };
        this.#log(`${item.server}: the ${SINGULAR[item.kind]} "${item.key}" cannot be served: ${reason}`);
        this.#failed.set(item.buildKey, failure);
        failed.push(failure);
      }
    }
  }
}
