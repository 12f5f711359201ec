import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/client';
import { findHiddenInstructions, type HiddenInstructionFinding } from '../lint/hidden-instructions/index.js';
import { digestOf } from '../util/digest.js';
import { type MarkedFinding, markedFindings } from './poisoning.js';

/**
 * What an upstream server offers besides tools, as it last listed it. A kind is absent when the
 * server does not declare it (no `resources` or `prompts` capability).
 */
export interface UpstreamCatalog {
  readonly resources?: readonly Resource[];
  readonly templates?: readonly ResourceTemplateType[];
  readonly prompts?: readonly Prompt[];
}

/** The kinds of a catalog, as the lock names its sections. */
export type CatalogKind = 'resources' | 'templates' | 'prompts';

/** Every kind, in the order the gateway lists and reports them. */
export const CATALOG_KINDS: readonly CatalogKind[] = ['resources', 'templates', 'prompts'];

/** One listed item of a catalog, of any kind. */
export type CatalogItem = Resource | ResourceTemplateType | Prompt;

/** The item of each kind. */
export interface CatalogItems {
  readonly resources: Resource;
  readonly templates: ResourceTemplateType;
  readonly prompts: Prompt;
}

/**
 * What identifies an item on its server: a resource's URI, a template's URI template, a prompt's name.
 *
 * @example
 * catalogKey('resources', { uri: 'demo://a', name: 'a' }); // 'demo://a'
 */
export function catalogKey(kind: CatalogKind, item: CatalogItem): string {
  switch (kind) {
    case 'resources':
      return (item as Resource).uri;
    case 'templates':
      return (item as ResourceTemplateType).uriTemplate;
    case 'prompts':
      return item.name;
    default:
      return kind satisfies never;
  }
}

/** What the model reads of an item, as the hidden-instruction check takes it. */
interface ItemText {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
}

/**
 * The model-visible text of an item: its name, title and description, and a prompt's arguments (as
 * an input schema, so that each argument's description is checked like a parameter's). A resource's
 * size, annotations and icons are not text the model is steered by, so a file that grows is not a
 * changed definition.
 */
function itemText(kind: CatalogKind, item: CatalogItem): ItemText {
  const base = {
    name: item.name,
    ...(typeof item.title === 'string' ? { title: item.title } : {}),
    ...(typeof item.description === 'string' ? { description: item.description } : {}),
  };
  if (kind !== 'prompts') return base;
  const properties: Record<string, unknown> = Object.create(null);
  for (const argument of (item as Prompt).arguments ?? []) {
    properties[argument.name] = {
      type: 'string',
      ...(typeof argument.description === 'string' ? { description: argument.description } : {}),
    };
  }
  return { ...base, inputSchema: { type: 'object', properties } };
}

/**
 * The digest the lock pins for an item: SHA-256 of the canonical JSON of its key and its model-visible
 * text (name, title, description, a resource's MIME type, a prompt's arguments with their descriptions
 * and whether each is required).
 *
 * @example
 * catalogDigest('prompts', { name: 'greet', description: 'Greets.' }); // 'sha256:…'
 */
export function catalogDigest(kind: CatalogKind, item: CatalogItem): string {
  const mimeType = kind === 'prompts' ? undefined : (item as Resource).mimeType;
  return digestOf({
    kind,
    key: catalogKey(kind, item),
    name: item.name,
    title: item.title,
    description: item.description,
    mimeType,
    arguments:
      kind === 'prompts'
        ? ((item as Prompt).arguments ?? []).map((argument) => ({
            name: argument.name,
            description: argument.description,
            required: argument.required === true,
          }))
        : undefined,
  });
}

const found = new WeakMap<object, readonly HiddenInstructionFinding[]>();

/**
 * The error-level hidden-instruction findings in an item's model-visible text: the same rules as a
 * tool's definition. Computed once per listed item.
 *
 * @example
 * if (catalogFindings('prompts', prompt).length > 0) console.log(`${prompt.name} is withheld until accepted`);
 */
export function catalogFindings(kind: CatalogKind, item: CatalogItem): readonly HiddenInstructionFinding[] {
  let findings = found.get(item);
  if (!findings) {
    findings = findHiddenInstructions(itemText(kind, item)).filter((finding) => finding.severity === 'error');
    found.set(item, findings);
  }
  return findings;
}

/** The findings of {@link catalogFindings}, each with its text marked for the operator. */
export function markedCatalogFindings(kind: CatalogKind, item: CatalogItem): MarkedFinding[] {
  return markedFindings(itemText(kind, item));
}

/**
 * How `gateway pin --accept` names an item: `<server>/prompt:<name>`, `<server>/resource:<uri>` or
 * `<server>/template:<uri template>`, apart from the server's tools.
 *
 * @example
 * catalogAcceptKey('everything', 'prompts', 'simple-prompt'); // 'everything/prompt:simple-prompt'
 */
export function catalogAcceptKey(server: string, kind: CatalogKind, key: string): string {
  return `${server}/${SINGULAR[kind]}:${key}`;
}

/** One item of a kind, as accept keys and messages name it. */
export const SINGULAR: { readonly [Kind in CatalogKind]: string } = {
  resources: 'resource',
  templates: 'template',
  prompts: 'prompt',
};
