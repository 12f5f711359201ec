import {
  type ClientCapabilities,
  type CreateMessageRequest,
  type ElicitRequestFormParams,
  type InputRequest,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import type { JsonSchema } from '../contract/index.js';
import type { JsonValue } from '../dispatch/serialize.js';
import { ToolError } from '../dispatch/tool-error.js';
import { jsonSchemaResultValidator } from '../dispatch/validate-result.js';
import { supportsFormElicitation } from './client-capabilities.js';

/** What a tool can ask its client for: the user (a form), the client's model, or the client's roots. */
export type InputKind = 'elicitation' | 'sampling' | 'roots';

/** One question of a call, by the key it travels under and its kind. */
export interface AskedInput {
  readonly key: string;
  readonly kind: InputKind;
}

/** A question answered in an earlier round, carried forward in the sealed `requestState`. */
export interface AnsweredInput extends AskedInput {
  readonly response: unknown;
}

/**
 * A response the question cannot take: of another kind (`received` names its method), or a form's
 * accepted content that does not match the form's `requestedSchema` (`issue` says where and how).
 */
export interface MisansweredInput extends AskedInput {
  readonly received: string;
  readonly issue?: string;
}

/** The key the gate's approval form travels under; a tool cannot ask under it. */
export const RESERVED_INPUT_KEY = 'approval';

const KEY = /^[A-Za-z0-9_.-]{1,64}$/;
const METHOD: Readonly<Record<InputKind, string>> = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};
const VIEW_KIND = { elicit: 'elicitation', sampling: 'sampling', roots: 'roots' } as const;

/**
 * Thrown by `mcp.elicit/sample/listRoots` on revision 2026-07-28 when the answer is not in hand yet:
 * the server answers the call with an input-required result instead of the tool's outcome. A tool
 * that catches it should let it go on; whatever it returns instead is not sent. Observers of the
 * call (the audit) see it as the failure type `input_required`.
 */
export class InputRequiredSignal extends ToolError {
  constructor(readonly key: string) {
    super(
      `The call stops here until the MCP client answers "${key}"; the server runs the tool again with the answer.`,
      { type: 'input_required', details: { key } },
    );
  }
}

/**
 * The questions of one run of a tool on revision 2026-07-28, where the server cannot push a request
 * in the middle of a call. Each run starts from the top: an ask already answered (in an earlier
 * round, carried in the sealed state, or in this request's `inputResponses` for a question the state
 * says was asked) resolves at once, in order; the first ask past them is recorded and the run stops
 * with an {@link InputRequiredSignal}. Asks made together (`Promise.all`) all travel in one round.
 *
 * @example
 * const round = new InputRound(capabilities, answered, asked, request.inputResponses);
 * const answer = await round.ask('elicitation', 'user_name', { message: 'Name?', requestedSchema });
 */
export class InputRound {
  readonly #capabilities: ClientCapabilities | undefined;
  readonly #answered: AnsweredInput[];
  readonly #awaited: readonly AskedInput[];
  readonly #responses: Readonly<Record<string, unknown>> | undefined;
  readonly #keys = new Set<string>();
  readonly #requests = new Map<string, { kind: InputKind; request: InputRequest }>();
  readonly #replayed: number;
  #position = 0;
  #missing: ClientCapabilities | undefined;
  #misanswered: MisansweredInput | undefined;

  /**
   * @param capabilities What the client declared in the request's `_meta`.
   * @param answered The answers of earlier rounds, in the order the tool asked.
   * @param awaited The questions of the last round, whose answers this request's `responses` bring.
   * @param responses The request's `inputResponses`; an entry for a question not asked is ignored.
   */
  constructor(
    capabilities: ClientCapabilities | undefined,
    answered: readonly AnsweredInput[],
    awaited: readonly AskedInput[],
    responses: Readonly<Record<string, unknown>> | undefined,
  ) {
    this.#capabilities = capabilities;
    this.#answered = [...answered];
    this.#replayed = answered.length;
    this.#awaited = [...awaited];
    this.#responses = responses;
  }

  /**
   * Asks the client, or answers from what it already said. `key` names the question on the wire
   * (default `<kind>-<n>`, n counting this call's asks); a key is used once per call.
   */
  ask(kind: InputKind, key: string | undefined, params: unknown): Promise<unknown> {
    const position = this.#position++;
    const name = key ?? `${kind}-${position + 1}`;
    if (!isInputKey(name)) {
      return Promise.reject(
        new TypeError(
          `The input key ${JSON.stringify(name.slice(0, 80))} cannot be used: give 1 to 64 letters, digits, "_", "." or "-", other than "${RESERVED_INPUT_KEY}" (the approval form's).`,
        ),
      );
    }
    if (this.#keys.has(name)) {
      return Promise.reject(
        new TypeError(`The input key "${name}" was asked twice in one call; give each question its own key.`),
      );
    }
    this.#keys.add(name);
    if (!declaresInput(this.#capabilities, kind)) {
      this.#missing = { ...this.#missing, [kind]: {} };
      return Promise.reject(new InputRequiredSignal(name));
    }
    // Each run must retrace the earlier ones: the answered asks, then the ones the last round sent.
    const earlier =
      position < this.#replayed ? this.#answered[position] : this.#awaited[position - this.#replayed];
    if (earlier && (earlier.key !== name || earlier.kind !== kind)) {
      return Promise.reject(
        new Error(
          `The tool asked "${name}" (${METHOD[kind]}) where its earlier run asked "${earlier.key}" (${METHOD[earlier.kind]}): a tool must ask the same questions in the same order each time it runs, since each round runs it again.`,
        ),
      );
    }
    if (position < this.#replayed) return Promise.resolve(this.#answered[position]!.response);
    const fresh = earlier ? this.#fresh(name, kind, params) : undefined;
    if (fresh !== undefined) {
      this.#answered.push({ key: name, kind, response: fresh });
      return Promise.resolve(fresh);
    }
    this.#requests.set(name, { kind, request: inputRequestOf(kind, params) });
    return Promise.reject(new InputRequiredSignal(name));
  }

  /** The questions this run asked and could not answer: the next round's `inputRequests`. */
  get requests(): Record<string, InputRequest> {
    return Object.fromEntries([...this.#requests].map(([key, { request }]) => [key, request]));
  }

  /** The same questions, as the state remembers them. */
  get asked(): AskedInput[] {
    return [...this.#requests].map(([key, { kind }]) => ({ key, kind }));
  }

  /** Every answer so far, earlier rounds' and this request's, in the order the tool asked. */
  get answered(): readonly AnsweredInput[] {
    return this.#answered;
  }

  /** The capabilities the tool needed that the client did not declare (then nothing is asked). */
  get missingCapabilities(): ClientCapabilities | undefined {
    return this.#missing;
  }

  /** A response of the wrong kind for a question that was asked, if any. */
  get misanswered(): MisansweredInput | undefined {
    return this.#misanswered;
  }

  /** This request's answer to a question the last round asked; undefined when it brings none usable. */
  #fresh(key: string, kind: InputKind, params: unknown): unknown {
    const read = readInputAnswer(key, kind, params, this.#responses);
    if ('misanswered' in read) {
      this.#misanswered ??= read.misanswered;
      return undefined;
    }
    return read.answer;
  }
}

/**
 * The answer `responses` (a request's `inputResponses`) bring to the question `key` of `kind` asked
 * with `params`: `answer` is undefined when there is none; `misanswered` says when the response is of
 * another kind, or a form's accepted content does not match the form's `requestedSchema` (as the
 * legacy era's SDK checks a pushed form's answer: the asker gets only what its form allows).
 *
 * @example
 * const read = readInputAnswer('user_name', 'elicitation', params, request.inputResponses);
 */
export function readInputAnswer(
  key: string,
  kind: InputKind,
  params: unknown,
  responses: Readonly<Record<string, unknown>> | undefined,
): { readonly answer: unknown } | { readonly misanswered: MisansweredInput } {
  if (!responses || !Object.hasOwn(responses, key)) return { answer: undefined };
  const view = inputResponse(responses as Record<string, unknown>, key);
  if (view.kind === 'missing') return { answer: undefined };
  if (VIEW_KIND[view.kind] !== kind) {
    return { misanswered: { key, kind, received: METHOD[VIEW_KIND[view.kind]] } };
  }
  switch (view.kind) {
    case 'elicit': {
      if (view.content === undefined || view.action !== 'accept') return { answer: { action: view.action } };
      const schema = (params as { requestedSchema?: JsonSchema }).requestedSchema;
      const checked = schema ? jsonSchemaResultValidator(schema)(view.content as JsonValue) : undefined;
      if (checked && !checked.ok) {
        const first = checked.issues[0];
        return {
          misanswered: {
            key,
            kind,
            received: 'content that does not match the form',
            issue: first ? `${first.path}: ${first.message}` : 'it does not match',
          },
        };
      }
      return { answer: { action: view.action, content: view.content } };
    }
    case 'sampling':
      return { answer: view.result };
    case 'roots':
      return { answer: { roots: view.roots } };
    default: {
      const unreachable: never = view;
      throw new Error(`unknown response ${String(unreachable)}`);
    }
  }
}

/**
 * Whether `name` can key a question on the wire: 1 to 64 letters, digits, `_`, `.` or `-`, and not
 * the approval form's.
 */
export function isInputKey(name: string): boolean {
  return KEY.test(name) && name !== RESERVED_INPUT_KEY;
}

/** Whether the capabilities a request declared let its client answer a question of `kind`. */
export function declaresInput(capabilities: ClientCapabilities | undefined, kind: InputKind): boolean {
  switch (kind) {
    case 'elicitation':
      return supportsFormElicitation(capabilities);
    case 'sampling':
      return capabilities?.sampling !== undefined;
    case 'roots':
      return capabilities?.roots !== undefined;
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown input kind ${String(unreachable)}`);
    }
  }
}

/** The `inputRequests` entry of a question of `kind` asked with `params`. */
export function inputRequestOf(kind: InputKind, params: unknown): InputRequest {
  switch (kind) {
    case 'elicitation':
      return inputRequired.elicit(params as Omit<ElicitRequestFormParams, 'mode'>);
    case 'sampling':
      return inputRequired.createMessage(params as CreateMessageRequest['params']);
    case 'roots':
      return inputRequired.listRoots();
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown input kind ${String(unreachable)}`);
    }
  }
}

/** The wire method of a kind of question, for messages. */
export function inputMethod(kind: InputKind): string {
  return METHOD[kind];
}
