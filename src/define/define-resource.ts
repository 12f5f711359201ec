import { ToolDefinitionError } from '../errors/index.js';
import type { ContentAnnotations, ResourceContents } from './mcp-content.js';
import {
  type Completer,
  type CompletionContext,
  checkCompleters,
  checkDescription,
  checkOfferingName,
  type OfferingMeta,
  type ReadContext,
} from './read-context.js';
import { UriTemplate } from './uri-template.js';

/** The brand that marks a value as a toolpact resource. */
export const RESOURCE_BRAND = Symbol.for('toolpact.resource');

/**
 * What a resource's `read` answers: text (a string), bytes (a `Uint8Array`, sent base64), or the MCP
 * `contents` as they are (how a gateway relays an upstream's answer, untouched).
 */
export type ResourceReadResult = string | Uint8Array | readonly ResourceContents[];

/** Options of {@link defineResource}: exactly one of `uri` and `template`. */
export interface ResourceDefinition {
  /** What a client lists it as (`README`, `Daily notes`). */
  readonly name: string;
  /** The one URI of a static resource, e.g. `notes://readme`. */
  readonly uri?: string;
  /** A family of resources: an RFC 6570 level 1 template, e.g. `notes://{name}` (or `{+path}` for paths). */
  readonly template?: string;
  readonly title?: string;
  /** What it holds and when a client should read it: model-visible, so linted and gated like a tool's. */
  readonly description: string;
  readonly mimeType?: string;
  /** Size in bytes, when known before reading. */
  readonly size?: number;
  readonly annotations?: ContentAnnotations;
  readonly meta?: OfferingMeta;
  /** Suggestions per template variable, for `completion/complete`. */
  readonly complete?: { readonly [variable: string]: Completer };
  /**
   * Reads it. `variables` holds the template's variables, decoded (empty for a static resource).
   * Throw a `ToolError` to choose the words the client reads.
   */
  readonly read: (
    uri: string,
    variables: Readonly<Record<string, string>>,
    context: ReadContext,
  ) => ResourceReadResult | Promise<ResourceReadResult>;
  /**
   * Watches it for a client that subscribed: call `updated` when it changes; answer the function that
   * stops watching. Without it a subscription is accepted and never sends an update.
   */
  readonly subscribe?: (
    uri: string,
    updated: () => void,
    context: ReadContext,
  ) => (() => void) | Promise<() => void>;
}

/** A resource made by {@link defineResource}, enrolled with `registry.registerResource`. */
export interface Resource extends ResourceDefinition {
  readonly [RESOURCE_BRAND]: true;
  /** What the registry knows it by: its `uri`, or its `template`. */
  readonly key: string;
  readonly meta: OfferingMeta;
  /** The parsed template of a template resource. */
  readonly uriTemplate: UriTemplate | undefined;
}

export type { Completer, CompletionContext, OfferingMeta, ReadContext };

/**
 * Defines a resource: a static one (`uri`) or a template of them (`template`), with how to read it.
 * Mistakes (no description, both or neither of `uri` and `template`, a template toolpact cannot read,
 * a completion for a variable the template lacks) throw {@link ToolDefinitionError} here.
 *
 * @example
 * const note = defineResource({
 *   name: 'note',
 *   template: 'notes://{name}',
 *   description: 'One note of the workspace, as Markdown.',
 *   mimeType: 'text/markdown',
 *   complete: { name: (typed) => notes.names().filter((name) => name.startsWith(typed)) },
 *   read: (_uri, { name }) => notes.read(name),
 * });
 */
export function defineResource(definition: ResourceDefinition): Resource {
  const name = checkOfferingName('resource', definition?.name);
  const description = checkDescription('resource', name, definition.description);
  const { uri, template } = definition;
  if ((uri === undefined) === (template === undefined)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `The resource "${name}" has ${uri === undefined ? 'neither a uri nor a template' : 'both a uri and a template'}; give exactly one: uri for one resource, template for a family of them.`,
      name,
    );
  }
  const key = uri ?? template;
  if (typeof key !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(key)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `The resource "${name}" has the ${uri === undefined ? 'template' : 'uri'} ${JSON.stringify(key)}, which is not an absolute URI; give one with a scheme and no spaces, e.g. "notes://readme".`,
      name,
    );
  }
  const uriTemplate = template === undefined ? undefined : UriTemplate.parse(template, name);
  checkCompleters('resource', name, definition.complete, uriTemplate?.variables ?? []);
  if (typeof definition.read !== 'function') {
    throw new ToolDefinitionError(
      'invalid_option',
      `The resource "${name}" has no read function; give one.`,
      name,
    );
  }
  if (definition.subscribe !== undefined && typeof definition.subscribe !== 'function') {
    throw new ToolDefinitionError(
      'invalid_option',
      `The resource "${name}" has a subscribe that is not a function; give a function or leave it out.`,
      name,
    );
  }
  if (definition.size !== undefined && !(Number.isSafeInteger(definition.size) && definition.size >= 0)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `The resource "${name}" has the size ${String(definition.size)}; give a whole number of bytes, or leave it out.`,
      name,
    );
  }
  return Object.freeze({
    ...definition,
    description,
    key,
    meta: Object.freeze({ ...definition.meta }),
    uriTemplate,
    [RESOURCE_BRAND]: true as const,
  });
}

/** True when `value` is a resource made by {@link defineResource}. */
export function isResource(value: unknown): value is Resource {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as Record<symbol, unknown>)[RESOURCE_BRAND] === true &&
    typeof (value as Resource).read === 'function'
  );
}
