import type { Registry } from './registry.js';

/** A registry's resources and prompts as rows: what `toolpact inspect` and the studio show of them. */
export interface OfferingRows {
  readonly resources: readonly {
    readonly uri: string;
    readonly kind: 'resource' | 'template';
    readonly name: string;
    readonly mimeType: string | null;
    readonly description: string;
  }[];
  readonly prompts: readonly {
    readonly name: string;
    /** Argument names; an optional one ends in "?". */
    readonly arguments: readonly string[];
    readonly description: string;
  }[];
}

/**
 * The resources and prompts of a registry, in registration order (none for a registry from another
 * copy of toolpact that has no such methods).
 *
 * @example
 * const { resources, prompts } = offeringRows(registry);
 */
export function offeringRows(registry: Registry): OfferingRows {
  const resources = (registry.resources?.() ?? []).map((resource) => ({
    uri: resource.key,
    kind: resource.uriTemplate ? ('template' as const) : ('resource' as const),
    name: resource.name,
    mimeType: resource.mimeType ?? null,
    description: resource.description,
  }));
  const prompts = (registry.prompts?.() ?? []).map((prompt) => ({
    name: prompt.name,
    arguments: Object.entries(prompt.arguments).map(([name, spec]) => (spec.required ? name : `${name}?`)),
    description: prompt.description,
  }));
  return { resources, prompts };
}
