import { ToolDefinitionError } from '../errors/index.js';

/** What a resource's `read` or `subscribe`, or a prompt's `get`, receives besides its input. */
export interface ReadContext {
  /** Aborted when the client cancels the request (or the registry's caller aborts it). */
  readonly signal: AbortSignal;
  /** Whatever the caller passed as `state` (over MCP: the request context, as for a tool call). */
  readonly state: unknown;
}

/** What a completion function receives besides the value typed so far. */
export interface CompletionContext extends ReadContext {
  /** The other arguments (or template variables) already chosen, as the client sent them. */
  readonly arguments: Readonly<Record<string, string>>;
}

/**
 * Suggests values for one prompt argument or template variable from what was typed so far. The
 * registry answers at most 100 of them (with `total` and `hasMore` when there are more).
 */
export type Completer = (
  value: string,
  context: CompletionContext,
) => readonly string[] | Promise<readonly string[]>;

/** Extra facts about a resource or a prompt that are not part of what the client sees. */
export interface OfferingMeta {
  /** Where it comes from: `local` (default), or e.g. `mcp:<server>` for what a gateway relays. */
  readonly source?: string;
  /** Lint rules switched off for it, by rule name. */
  readonly lint?: { readonly disable?: readonly string[] };
  /**
   * `true`: left out of `resources/list`, `resources/templates/list` and `prompts/list`, yet still
   * answered, under the gate, when a client names it: what a gateway does with a definition it
   * withholds, whose every read is refused with a message saying why.
   */
  readonly unlisted?: boolean;
  readonly [key: string]: unknown;
}

/** A name a client may be shown: 1 to 256 characters, no control characters. */
export function checkOfferingName(kind: 'resource' | 'prompt', name: unknown): string {
  if (
    typeof name !== 'string' ||
    name.trim() === '' ||
    name.length > 256 ||
    /[\u0000-\u001f\u007f]/.test(name)
  ) {
    throw new ToolDefinitionError(
      'invalid_name',
      `A ${kind} was given the name ${JSON.stringify(name)?.slice(0, 80)}; give a name of 1 to 256 characters without control characters.`,
      typeof name === 'string' ? name : undefined,
    );
  }
  return name;
}

/** The trimmed description, or a {@link ToolDefinitionError} naming the resource or prompt. */
export function checkDescription(kind: 'resource' | 'prompt', name: string, description: unknown): string {
  if (typeof description !== 'string' || description.trim() === '') {
    throw new ToolDefinitionError(
      'missing_description',
      `The ${kind} "${name}" has no description; give it one (what it holds, and when a client should use it).`,
      name,
    );
  }
  return description.trim();
}

/** Checks that `complete` holds only functions, under names `known` has. */
export function checkCompleters(
  kind: 'resource' | 'prompt',
  name: string,
  complete: unknown,
  known: readonly string[],
): void {
  if (complete === undefined) return;
  if (complete === null || typeof complete !== 'object') {
    throw new ToolDefinitionError(
      'invalid_option',
      `The ${kind} "${name}" has a "complete" that is not an object; give one function per ${kind === 'resource' ? 'template variable' : 'argument'}.`,
      name,
    );
  }
  for (const [key, value] of Object.entries(complete)) {
    if (!known.includes(key) || typeof value !== 'function') {
      throw new ToolDefinitionError(
        'invalid_option',
        `The ${kind} "${name}" completes "${key}", which ${known.includes(key) ? 'is not given a function' : `is not one of its ${kind === 'resource' ? 'template variables' : 'arguments'} (${known.join(', ') || 'none'})`}; complete only ${kind === 'resource' ? 'the variables of its template' : 'its declared arguments'}, each with a function.`,
        name,
      );
    }
  }
}
