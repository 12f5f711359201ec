import type { Registry } from '../registry/registry.js';
import { counted } from '../util/counted.js';
import { renderTable } from './table.js';

/** What `toolpact inspect` shows of a registry's resources and prompts. */
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

/** The resources and prompts as two tables, or nothing when there are none. */
export function renderOfferings(rows: OfferingRows): string {
  const parts: string[] = [];
  if (rows.resources.length > 0) {
    parts.push(
      `${counted(rows.resources.length, 'resource')} (templates included):`,
      renderTable(
        ['uri', 'kind', 'name', 'mime type'],
        rows.resources.map((row) => [row.uri, row.kind, row.name, row.mimeType ?? '']),
      ).trimEnd(),
      '',
    );
  }
  if (rows.prompts.length > 0) {
    parts.push(
      `${counted(rows.prompts.length, 'prompt')}:`,
      renderTable(
        ['prompt', 'arguments'],
        rows.prompts.map((row) => [row.name, row.arguments.join(', ') || '(none)']),
      ).trimEnd(),
      '',
    );
  }
  return parts.join('\n');
}
