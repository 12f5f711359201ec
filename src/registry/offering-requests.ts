import type { ToolContract } from '../contract/index.js';
import { resolveEffects } from '../contract/index.js';
import type { Prompt } from '../define/define-prompt.js';
import type { Resource } from '../define/define-resource.js';
import type {
  GetPromptResult,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
} from '../define/mcp-content.js';
import type { OfferingMeta, ReadContext } from '../define/read-context.js';
import type { CallOptions } from '../dispatch/call.js';
import type { FailureEnvelope } from '../dispatch/envelope.js';
import { toolFailure } from '../dispatch/errors.js';
import type { PromptCatalog, ResourceCatalog } from './catalog.js';
import { RegistryRequestError } from './request-error.js';

/** What the gate is asked about a resource read or a prompt get: a contract standing for it. */
export interface OfferingGateRequest {
  readonly target: 'resource' | 'prompt';
  readonly contract: ToolContract;
  readonly meta: OfferingMeta;
  readonly arguments: { readonly [name: string]: unknown };
}

/** Runs the registry's gate for one read or get: undefined to go on, or the refusal. */
export type OfferingGate = (
  request: OfferingGateRequest,
  options: CallOptions,
) => Promise<FailureEnvelope | undefined>;

/** What `completion/complete` names: a prompt, or a resource template by its template text. */
export type CompletionReference =
  | { readonly type: 'ref/prompt'; readonly name: string }
  | { readonly type: 'ref/resource'; readonly uri: string };

/** The answer of `completion/complete`: at most 100 values. */
export interface CompletionResult {
  readonly values: readonly string[];
  /** How many values there are in all, when more than were sent. */
  readonly total?: number;
  readonly hasMore?: boolean;
}

const MAX_COMPLETIONS = 100;

const NO_SIGNAL = new AbortController().signal;

/** Finds, gates and reads one resource; refusals are {@link RegistryRequestError}s. */
export async function readResource(
  catalog: ResourceCatalog,
  uri: string,
  options: CallOptions,
  gate: OfferingGate | undefined,
): Promise<ReadResourceResult> {
  const { resource, variables } = await allowedResource(
    catalog,
    uri,
    'List the resources (resources/list, resources/templates/list) and read one of those.',
    options,
    gate,
  );
  let answer: unknown;
  try {
    answer = await resource.read(uri, variables, readContext(options));
  } catch (error) {
    throw failedRead('resource', uri, `Reading the resource ${JSON.stringify(uri)} failed`, error);
  }
  return { contents: contentsOf(resource, uri, answer) };
}

/**
 * Gates and starts watching one resource for one subscriber: a subscription is decided as a read of
 * its URI (its updates tell of a resource the caller may not read otherwise). Refusals and a
 * `subscribe` that fails are {@link RegistryRequestError}s; a resource without `subscribe` answers a
 * stop that does nothing.
 */
export async function subscribeResource(
  catalog: ResourceCatalog,
  uri: string,
  updated: () => void,
  options: CallOptions,
  gate: OfferingGate | undefined,
): Promise<() => void> {
  const { resource } = await allowedResource(
    catalog,
    uri,
    'It cannot be subscribed to; list the resources and subscribe to one of those.',
    options,
    gate,
  );
  const subscribe = resource.subscribe;
  if (!subscribe) return () => {};
  try {
    return await subscribe(uri, updated, readContext(options));
  } catch (error) {
    throw failedRead('resource', uri, `Subscribing to the resource ${JSON.stringify(uri)} failed`, error);
  }
}

/** The resource a URI names, once the gate allows reading it; else a {@link RegistryRequestError}. */
async function allowedResource(
  catalog: ResourceCatalog,
  uri: string,
  whatToDo: string,
  options: CallOptions,
  gate: OfferingGate | undefined,
): Promise<NonNullable<ReturnType<ResourceCatalog['find']>>> {
  const found = typeof uri === 'string' ? catalog.find(uri) : undefined;
  if (!found) {
    throw new RegistryRequestError(
      'not_found',
      'resource',
      String(uri),
      `No resource has the URI ${JSON.stringify(String(uri).slice(0, 200))}. ${whatToDo}`,
    );
  }
  const { resource } = found;
  await refuseUnlessAllowed(
    gate,
    'resource',
    uri,
    resourceContract(resource),
    resource.meta,
    { uri },
    options,
  );
  return found;
}

/** Checks the arguments, gates and gets one prompt; refusals are {@link RegistryRequestError}s. */
export async function getPrompt(
  catalog: PromptCatalog,
  name: string,
  args: unknown,
  options: CallOptions,
  gate: OfferingGate | undefined,
): Promise<GetPromptResult> {
  const prompt = catalog.get(name);
  if (!prompt) {
    // Only the listed ones: an unlisted prompt is named to nobody who did not name it.
    const names = catalog
      .list()
      .filter((each) => each.meta.unlisted !== true)
      .map((each) => each.name);
    throw new RegistryRequestError(
      'not_found',
      'prompt',
      String(name),
      `No prompt is named ${JSON.stringify(String(name).slice(0, 200))}. ${names.length > 0 ? `The prompts are: ${names.slice(0, 20).join(', ')}.` : 'This server has no prompts.'} List them (prompts/list) and get one of those.`,
    );
  }
  const checked = checkPromptArguments(prompt, args);
  await refuseUnlessAllowed(gate, 'prompt', name, promptContract(prompt), prompt.meta, checked, options);
  let answer: unknown;
  try {
    answer = await prompt.get(checked, readContext(options));
  } catch (error) {
    throw failedRead('prompt', name, `Getting the prompt "${name}" failed`, error);
  }
  return promptResultOf(prompt, answer);
}

/**
 * Suggestions for one argument of a prompt or one variable of a resource template, as far as the gate
 * lets them be seen: a completion is decided as the get or read it leads to (the prompt with the
 * arguments so far and the value typed; the template filled with them). A value typed into what the
 * policy does not allow outright is refused; a suggestion that leads there is left out. `decide` is
 * the gate's decision alone: a completion never asks a person, and takes no approval meant for a read.
 */
export async function complete(
  resources: ResourceCatalog,
  prompts: PromptCatalog,
  reference: CompletionReference,
  argument: { readonly name: string; readonly value: string },
  context: { readonly arguments?: Readonly<Record<string, string>> } | undefined,
  options: CallOptions,
  decide: OfferingGate | undefined,
): Promise<CompletionResult> {
  const found = completerOf(resources, prompts, reference, argument.name);
  if (!found.completer) return { values: [] };
  const typed = String(argument.value ?? '');
  const given = { ...context?.arguments };
  const leadsTo = (value: string) => found.request({ ...given, [argument.name]: value });
  const refusal = decide ? await decide(leadsTo(typed), options) : undefined;
  if (refusal) {
    throw new RegistryRequestError(
      'denied',
      found.request(given).target,
      found.subject,
      refusalMessage(`Completing "${String(argument.name).slice(0, 64)}" of ${found.what}`, refusal),
      refusal,
    );
  }
  let values: readonly unknown[];
  try {
    values = await found.completer(typed, { ...readContext(options), arguments: given });
  } catch (error) {
    throw failedRead('completion', argument.name, `Completing "${argument.name}" failed`, error);
  }
  const strings = (Array.isArray(values) ? values : []).filter(
    (value): value is string => typeof value === 'string',
  );
  const shown: string[] = [];
  for (const value of strings) {
    if (!decide || (await decide(leadsTo(value), options)) === undefined) shown.push(value);
  }
  if (shown.length <= MAX_COMPLETIONS) return { values: shown };
  return { values: shown.slice(0, MAX_COMPLETIONS), total: shown.length, hasMore: true };
}

/** What a completion completes: its completer, and the gate's request for the get or read it leads to. */
interface CompletionSubject {
  readonly completer: Completer | undefined;
  readonly subject: string;
  /** For messages: `the prompt "review"`, `the resource template "notes://{name}"`. */
  readonly what: string;
  readonly request: (values: Readonly<Record<string, string>>) => OfferingGateRequest;
}

type Completer = NonNullable<Prompt['arguments'][string]['complete']>;

function completerOf(
  resources: ResourceCatalog,
  prompts: PromptCatalog,
  reference: CompletionReference,
  argument: string,
): CompletionSubject {
  if (reference?.type === 'ref/prompt') {
    const prompt = prompts.get(reference.name);
    if (!prompt) {
      throw new RegistryRequestError(
        'not_found',
        'prompt',
        String(reference.name),
        `No prompt is named ${JSON.stringify(String(reference.name).slice(0, 200))}, so none of its arguments can be completed. List the prompts (prompts/list) and name one of those.`,
      );
    }
    const contract = promptContract(prompt);
    return {
      completer: Object.hasOwn(prompt.arguments, argument) ? prompt.arguments[argument]?.complete : undefined,
      subject: prompt.name,
      what: `the prompt "${prompt.name}"`,
      request: (values) => ({ target: 'prompt', contract, meta: prompt.meta, arguments: values }),
    };
  }
  if (reference?.type === 'ref/resource') {
    const resource = resources.template(reference.uri);
    if (!resource) {
      throw new RegistryRequestError(
        'not_found',
        'resource',
        String(reference.uri),
        `No resource template is ${JSON.stringify(String(reference.uri).slice(0, 200))}. List the templates (resources/templates/list) and name one by its uriTemplate.`,
      );
    }
    const contract = resourceContract(resource);
    const template = resource.uriTemplate;
    return {
      completer:
        resource.complete && Object.hasOwn(resource.complete, argument)
          ? resource.complete[argument]
          : undefined,
      subject: resource.key,
      what: `the resource template "${resource.key}"`,
      request: (values) => ({
        target: 'resource',
        contract,
        meta: resource.meta,
        arguments: { uri: template ? template.expand(values) : resource.key },
      }),
    };
  }
  throw new RegistryRequestError(
    'invalid_arguments',
    'completion',
    String((reference as { type?: unknown } | undefined)?.type),
    'A completion names either a prompt ({"type":"ref/prompt","name":…}) or a resource template ({"type":"ref/resource","uri":…}); send one of those.',
  );
}

/** The arguments of a `prompts/get`, checked: an object of strings, every required one, no unknown one. */
function checkPromptArguments(prompt: Prompt, args: unknown): Readonly<Record<string, string>> {
  const given = args ?? {};
  const problems: string[] = [];
  const checked: Record<string, string> = Object.create(null);
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    problems.push(`the arguments are ${Array.isArray(given) ? 'an array' : typeof given}, not an object`);
  } else {
    for (const [key, value] of Object.entries(given)) {
      if (!Object.hasOwn(prompt.arguments, key))
        problems.push(`"${key.slice(0, 64)}" is not one of its arguments`);
      else if (typeof value !== 'string')
        problems.push(`"${key}" is ${value === null ? 'null' : typeof value}, not a string`);
      else checked[key] = value;
    }
    for (const [key, spec] of Object.entries(prompt.arguments)) {
      if (spec.required && !Object.hasOwn(given, key)) problems.push(`"${key}" is required and missing`);
    }
  }
  if (problems.length > 0) {
    const declared = Object.keys(prompt.arguments);
    throw new RegistryRequestError(
      'invalid_arguments',
      'prompt',
      prompt.name,
      `The prompt "${prompt.name}" was given arguments it cannot take: ${problems.join('; ')}. It takes ${declared.length > 0 ? declared.map((key) => `${key}${prompt.arguments[key]?.required ? ' (required)' : ''}`).join(', ') : 'no arguments'}, each a string.`,
    );
  }
  return Object.freeze({ ...checked });
}

async function refuseUnlessAllowed(
  gate: OfferingGate | undefined,
  target: 'resource' | 'prompt',
  subject: string,
  contract: ToolContract,
  meta: OfferingMeta,
  args: { readonly [name: string]: unknown },
  options: CallOptions,
): Promise<void> {
  if (!gate) return;
  const failure = await gate({ target, contract, meta, arguments: args }, options);
  if (!failure) return;
  const what =
    target === 'resource'
      ? `Reading the resource ${JSON.stringify(subject)}`
      : `Getting the prompt "${subject}"`;
  throw new RegistryRequestError('denied', target, subject, refusalMessage(what, failure), failure);
}

/** The words of a refused read or get: what was refused, why, and what to do. */
function refusalMessage(what: string, failure: FailureEnvelope): string {
  const error = failure.error;
  switch (error.type) {
    case 'permission_denied': {
      const reason =
        'reason' in error && typeof error.reason === 'string' ? error.reason : 'the policy refused it';
      const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
      return `${what} was not permitted: ${sentence} Do not ask again; ask the user, or the server's operator to allow it in the policy.`;
    }
    case 'approval_pending': {
      const approval = 'approval' in error && error.approval ? ` (${String(error.approval)})` : '';
      return `${what} needs an approval that is pending${approval}. Ask again once a person has approved it.`;
    }
    default:
      return `${what} was refused: ${error.message}`;
  }
}

/** The contract a resource read stands as before the gate: a `read` of its URI. */
export function resourceContract(resource: Resource): ToolContract {
  return contractOf(resource, () =>
    synthetic(resource.name, resource.title, resource.description, {
      type: 'object',
      properties: { uri: { type: 'string' } },
      required: ['uri'],
    }),
  );
}

/** The contract a prompt get stands as before the gate: a `read` of the prompt with its arguments. */
export function promptContract(prompt: Prompt): ToolContract {
  const properties = Object.fromEntries(
    Object.entries(prompt.arguments).map(([key, spec]) => [
      key,
      { type: 'string', ...(spec.description ? { description: spec.description } : {}) },
    ]),
  );
  const required = Object.entries(prompt.arguments)
    .filter(([, spec]) => spec.required)
    .map(([key]) => key);
  return contractOf(prompt, () =>
    synthetic(prompt.name, prompt.title, prompt.description, {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
    }),
  );
}

const contracts = new WeakMap<object, ToolContract>();

function synthetic(
  name: string,
  title: string | undefined,
  description: string,
  parameters: ToolContract['parameters'],
): ToolContract {
  return Object.freeze({
    name,
    ...(title ? { title } : {}),
    description,
    parameters,
    category: 'read',
    effects: resolveEffects('read'),
  });
}

/** The contract of a resource or prompt, made once per definition (definitions are frozen). */
function contractOf(definition: Resource | Prompt, make: () => ToolContract): ToolContract {
  let contract = contracts.get(definition);
  if (!contract) {
    contract = make();
    contracts.set(definition, contract);
  }
  return contract;
}

function readContext(options: CallOptions): ReadContext {
  return { signal: options.signal ?? NO_SIGNAL, state: options.state };
}

function failedRead(
  target: 'resource' | 'prompt' | 'completion',
  subject: string,
  what: string,
  error: unknown,
): RegistryRequestError {
  // The same reading of a thrown value as a tool's failure: a ToolError's words, or the sanitized message.
  const failure = toolFailure(subject, error);
  const hint = 'hint' in failure.error && failure.error.hint ? ` ${failure.error.hint}` : '';
  return new RegistryRequestError(
    'failed',
    target,
    subject,
    `${what}: ${failure.error.message}${hint}`,
    failure,
  );
}

function contentsOf(resource: Resource, uri: string, answer: unknown): readonly ResourceContents[] {
  const mimeType = resource.mimeType ? { mimeType: resource.mimeType } : {};
  if (typeof answer === 'string') return [{ uri, ...mimeType, text: answer }];
  if (answer instanceof Uint8Array)
    return [{ uri, ...mimeType, blob: Buffer.from(answer).toString('base64') }];
  if (Array.isArray(answer) && answer.every(isResourceContents)) return answer;
  throw new RegistryRequestError(
    'failed',
    'resource',
    uri,
    `The resource ${JSON.stringify(uri)} answered something that is not its content (its read must answer a string, a Uint8Array or an array of { uri, text } / { uri, blob }). Tell the server's maintainer.`,
  );
}

function isResourceContents(value: unknown): value is ResourceContents {
  if (value === null || typeof value !== 'object') return false;
  const item = value as Record<string, unknown>;
  return typeof item.uri === 'string' && (typeof item.text === 'string' || typeof item.blob === 'string');
}

function promptResultOf(prompt: Prompt, answer: unknown): GetPromptResult {
  const description = { description: prompt.description };
  if (typeof answer === 'string') {
    return { ...description, messages: [{ role: 'user', content: { type: 'text', text: answer } }] };
  }
  if (Array.isArray(answer) && answer.every(isPromptMessage)) return { ...description, messages: answer };
  if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
    const result = answer as GetPromptResult;
    if (Array.isArray(result.messages) && result.messages.every(isPromptMessage)) {
      return result.description === undefined ? { ...description, ...result } : result;
    }
  }
  throw new RegistryRequestError(
    'failed',
    'prompt',
    prompt.name,
    `The prompt "${prompt.name}" answered something that is not its messages (its get must answer a string, an array of { role, content } or { messages }). Tell the server's maintainer.`,
  );
}

function isPromptMessage(value: unknown): value is PromptMessage {
  if (value === null || typeof value !== 'object') return false;
  const message = value as Record<string, unknown>;
  const content = message.content as Record<string, unknown> | null | undefined;
  return (
    (message.role === 'user' || message.role === 'assistant') &&
    content !== null &&
    typeof content === 'object' &&
    typeof content.type === 'string'
  );
}
