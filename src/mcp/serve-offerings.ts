import {
  type CompleteResult,
  type GetPromptResult,
  type InputRequiredResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Prompt } from '../define/define-prompt.js';
import type { Resource } from '../define/define-resource.js';
import type { Registry } from '../registry/registry.js';
import { RegistryRequestError } from '../registry/request-error.js';
import { decodeCursor, encodeCursor } from './pagination.js';
import { MAX_WATCHED_URIS, ResourceWatchers } from './resource-watchers.js';

/** What the offering handlers need of the server they are added to. */
export interface OfferingSettings {
  readonly pageSize: number;
  /** The call `state` of a request, as `tools/call` makes it (the request context, or the options' mapping). */
  readonly stateOf: (ctx: ServerContext) => unknown;
  /** Whether the connection can carry `notifications/resources/updated` (a legacy session or stdio). */
  readonly subscriptions: boolean;
  /**
   * Runs a `prompts/get` or a `resources/read` whose prompt or resource may ask the client (`run(state)`
   * runs it with a state): on revision 2026-07-28 as input-required rounds. Without it, it runs with
   * `stateOf(ctx)`.
   */
  readonly rounds?: <T>(
    ctx: ServerContext,
    kind: 'prompt' | 'resource',
    name: string,
    args: unknown,
    run: (state: unknown) => Promise<T>,
  ) => Promise<T | InputRequiredResult>;
}

/**
 * Adds `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `resources/unsubscribe`, `prompts/list`, `prompts/get` and `completion/complete` to a server of a
 * registry; answers what to release when the connection closes. Reads and gets go through the
 * registry (and so its gate); a refusal becomes a protocol error that says what to do.
 *
 * @example
 * const release = serveOfferings(server, registry, { pageSize: 100, stateOf, subscriptions: true });
 */
export function serveOfferings(server: Server, registry: Registry, settings: OfferingSettings): () => void {
  const { pageSize, stateOf } = settings;
  server.setRequestHandler('resources/list', (request): ListResourcesResult => {
    const statics = registry.resources().filter((resource) => !resource.uriTemplate && listed(resource));
    const { items, nextCursor } = page(statics, request.params?.cursor, pageSize, 'resource');
    return { resources: items.map(listedResource), ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('resources/templates/list', (request): ListResourceTemplatesResult => {
    const templates = registry.resources().filter((resource) => resource.uriTemplate && listed(resource));
    const { items, nextCursor } = page(templates, request.params?.cursor, pageSize, 'resource template');
    return { resourceTemplates: items.map(listedTemplate), ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    const read = (state: unknown) =>
      answered(() =>
        registry.readResource(uri, { signal: ctx.mcpReq.signal, callId: String(ctx.mcpReq.id), state }),
      ) as Promise<ReadResourceResult>;
    return settings.rounds ? settings.rounds(ctx, 'resource', uri, {}, read) : read(stateOf(ctx));
  });
  server.setRequestHandler('prompts/list', (request): ListPromptsResult => {
    const prompts = registry.prompts().filter(listed);
    const { items, nextCursor } = page(prompts, request.params?.cursor, pageSize, 'prompt');
    return { prompts: items.map(listedPrompt), ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const get = (state: unknown) =>
      answered(() =>
        registry.getPrompt(name, args, { signal: ctx.mcpReq.signal, callId: String(ctx.mcpReq.id), state }),
      ) as Promise<GetPromptResult>;
    return settings.rounds ? settings.rounds(ctx, 'prompt', name, args ?? {}, get) : get(stateOf(ctx));
  });
  server.setRequestHandler('completion/complete', async (request, ctx): Promise<CompleteResult> => {
    const { ref, argument, context } = request.params;
    const options = { signal: ctx.mcpReq.signal, state: stateOf(ctx) };
    const completion = await answered(() => registry.complete(ref, argument, context, options));
    return { completion: { ...completion, values: [...completion.values] } };
  });
  if (!settings.subscriptions) return () => {};
  const watchers = new ResourceWatchers(registry, (uri) => {
    if (server.transport) server.sendResourceUpdated({ uri }).catch(() => {});
  });
  const releases = new Map<string, () => void>();
  server.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const uri = request.params.uri;
    if (releases.has(uri)) return {};
    if (releases.size >= MAX_WATCHED_URIS) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `This connection already watches ${MAX_WATCHED_URIS} resources, the most it may; unsubscribe from one before subscribing to ${JSON.stringify(uri.slice(0, 200))}.`,
      );
    }
    const release = await answered(() => watchers.watch(uri, stateOf(ctx)));
    // A second subscribe of the same URI while the first was starting keeps one watch.
    if (releases.has(uri)) release();
    else releases.set(uri, release);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (request) => {
    releases.get(request.params.uri)?.();
    releases.delete(request.params.uri);
    return {};
  });
  return () => {
    releases.clear();
    watchers.close();
  };
}

/**
 * The answer of `run`, with a refusal of the registry as the protocol error the spec asks for: an
 * unknown resource is resource-not-found (the SDK sends the code the client's revision uses, with
 * the URI in `data`); bad arguments or an unknown prompt are invalid params; a refusal of the gate is
 * an invalid request whose `data` is the refusal (its type, rule and words); a failure is an
 * internal error with the failure's safe words.
 */
export async function answered<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw protocolErrorOf(error);
  }
}

function protocolErrorOf(error: unknown): Error {
  if (!(error instanceof RegistryRequestError)) {
    return new ProtocolError(ProtocolErrorCode.InternalError, 'The server could not answer this request.');
  }
  switch (error.code) {
    case 'not_found':
      return error.target === 'resource'
        ? new ResourceNotFoundError(error.subject, error.message)
        : new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { name: error.subject });
    case 'invalid_arguments':
      return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    case 'denied':
      return new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message, error.failure?.error);
    case 'failed':
    case 'closed':
      return new ProtocolError(ProtocolErrorCode.InternalError, error.message);
    default:
      return assertNever(error.code);
  }
}

function assertNever(code: never): Error {
  return new ProtocolError(ProtocolErrorCode.InternalError, `Unhandled refusal ${String(code)}.`);
}

/** One page of `items` from a cursor; a cursor not ours is -32602, as the pagination spec asks. */
function page<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
  kind: string,
): { readonly items: readonly T[]; readonly nextCursor?: string } {
  const offset = cursor === undefined ? 0 : decodeCursor(cursor);
  if (offset === undefined || offset > items.length) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `The cursor ${JSON.stringify(cursor?.slice(0, 64))} is not one this server gave out (or the ${kind} list has since shrunk). List again without a cursor.`,
    );
  }
  const end = Math.min(offset + pageSize, items.length);
  return end < items.length
    ? { items: items.slice(offset, end), nextCursor: encodeCursor(end) }
    : { items: items.slice(offset, end) };
}

/** Whether an offering is listed (`meta.unlisted` leaves it out of the lists, never out of reach). */
function listed(offering: Resource | Prompt): boolean {
  return offering.meta.unlisted !== true;
}

function listedResource(resource: Resource): ListResourcesResult['resources'][number] {
  return {
    uri: resource.key,
    ...described(resource),
    ...(resource.size === undefined ? {} : { size: resource.size }),
  };
}

function listedTemplate(resource: Resource): ListResourceTemplatesResult['resourceTemplates'][number] {
  return { uriTemplate: resource.key, ...described(resource) };
}

function described(resource: Resource) {
  return {
    name: resource.name,
    ...(resource.title ? { title: resource.title } : {}),
    description: resource.description,
    ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
    ...(resource.annotations
      ? { annotations: { ...resource.annotations, audience: resource.annotations.audience?.slice() } }
      : {}),
  };
}

function listedPrompt(prompt: Prompt): ListPromptsResult['prompts'][number] {
  const args = Object.entries(prompt.arguments).map(([name, spec]) => ({
    name,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.required ? { required: true } : {}),
  }));
  return {
    name: prompt.name,
    ...(prompt.title ? { title: prompt.title } : {}),
    description: prompt.description,
    ...(args.length > 0 ? { arguments: args } : {}),
  };
}
