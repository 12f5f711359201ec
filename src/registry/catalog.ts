import { isPrompt, type Prompt } from '../define/define-prompt.js';
import { isResource, type Resource } from '../define/define-resource.js';
import { ToolDefinitionError } from '../errors/index.js';

/** The resources of a registry under their keys (URI or template), in registration order. */
export class ResourceCatalog {
  readonly #byKey = new Map<string, Resource>();

  /** Adds resources; a non-resource or a key already taken throws {@link ToolDefinitionError}. Answers how many. */
  add(input: readonly unknown[]): number {
    const seen = new Set<string>();
    for (const resource of input) {
      if (!isResource(resource)) {
        throw new ToolDefinitionError(
          'not_a_tool',
          `registerResource() received ${describe(resource)}, which is not a resource. Make resources with defineResource() and pass them as arguments.`,
        );
      }
      if (this.#byKey.has(resource.key) || seen.has(resource.key)) {
        throw new ToolDefinitionError(
          'duplicate_name',
          `A resource with the ${resource.uriTemplate ? 'template' : 'URI'} "${resource.key}" is already registered. Each URI and template is registered once; remove the other first (unregisterResource).`,
          resource.name,
        );
      }
      seen.add(resource.key);
    }
    for (const resource of input as readonly Resource[]) this.#byKey.set(resource.key, resource);
    return input.length;
  }

  remove(key: string): boolean {
    return this.#byKey.delete(key);
  }

  list(): Resource[] {
    return [...this.#byKey.values()];
  }

  /** The template resource with exactly that template text, for a completion that names it. */
  template(text: string): Resource | undefined {
    const resource = this.#byKey.get(text);
    return resource?.uriTemplate ? resource : undefined;
  }

  /** The static resource with that URI, else the first template (in registration order) that matches it. */
  find(
    uri: string,
  ): { readonly resource: Resource; readonly variables: Readonly<Record<string, string>> } | undefined {
    const exact = this.#byKey.get(uri);
    if (exact && !exact.uriTemplate) return { resource: exact, variables: NO_VARIABLES };
    for (const resource of this.#byKey.values()) {
      const variables = resource.uriTemplate?.match(uri);
      if (variables) return { resource, variables };
    }
    return undefined;
  }
}

/** The prompts of a registry under their names, in registration order. */
export class PromptCatalog {
  readonly #byName = new Map<string, Prompt>();

  /** Adds prompts; a non-prompt or a name already taken throws {@link ToolDefinitionError}. Answers how many. */
  add(input: readonly unknown[]): number {
    const seen = new Set<string>();
    for (const prompt of input) {
      if (!isPrompt(prompt)) {
        throw new ToolDefinitionError(
          'not_a_tool',
          `registerPrompt() received ${describe(prompt)}, which is not a prompt. Make prompts with definePrompt() and pass them as arguments.`,
        );
      }
      if (this.#byName.has(prompt.name) || seen.has(prompt.name)) {
        throw new ToolDefinitionError(
          'duplicate_name',
          `A prompt named "${prompt.name}" is already registered. Prompt names must be unique in a registry; rename one of them.`,
          prompt.name,
        );
      }
      seen.add(prompt.name);
    }
    for (const prompt of input as readonly Prompt[]) this.#byName.set(prompt.name, prompt);
    return input.length;
  }

  remove(name: string): boolean {
    return this.#byName.delete(name);
  }

  list(): Prompt[] {
    return [...this.#byName.values()];
  }

  get(name: string): Prompt | undefined {
    return typeof name === 'string' ? this.#byName.get(name) : undefined;
  }
}

const NO_VARIABLES: Readonly<Record<string, string>> = Object.freeze({});

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
