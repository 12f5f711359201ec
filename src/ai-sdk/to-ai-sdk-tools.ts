import type { JSONSchema7, ModelMessage, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import type { ToolContract } from '../contract/index.js';
import type { Envelope, FailureEnvelope } from '../dispatch/envelope.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { ApprovalBridge } from '../integrations/approval-bridge.js';
import { selectContracts } from '../integrations/select-contracts.js';
import type { Registry } from '../registry/registry.js';
import { providerToolName } from '../schema/names.js';
import { withReturns } from '../schema/returns.js';
import { jsonSchema } from './peer.js';

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions {
  /**
   * What `execute` answers: `envelope` (default), the whole envelope for every call; or `value`, the
   * result of a successful call, while a failed one throws {@link ToolCallFailedError} (the SDK records
   * a `tool-error`). Either way the model reads the envelope's JSON.
   */
  readonly output?: 'envelope' | 'value';
  /**
   * From `approvalBridge(gate)`: the gate's `ask` becomes the tool's `needsApproval`, and an approval
   * given through the SDK's tool-approval flow lets that one call through the gate. Without it, an
   * `ask` goes to the registry's own approver (and is refused when it has none).
   */
  readonly approvals?: ApprovalBridge;
  /** Only these tools, by registry name (default: every registered tool). */
  readonly only?: readonly string[];
}

/**
 * The failure a tool call ended in, thrown by `execute` under `output: 'value'`. Its message is the
 * failure envelope's JSON, which is what the SDK hands the model as the tool error.
 *
 * @example
 * const step = result.steps[0].content.find((part) => part.type === 'tool-error');
 * if (step?.error instanceof ToolCallFailedError) console.log(step.error.envelope.error.type);
 */
export class ToolCallFailedError extends Error {
  override readonly name = 'ToolCallFailedError';
  constructor(readonly envelope: FailureEnvelope) {
    super(JSON.stringify(envelope));
  }
}

/**
 * The registry as an AI SDK (v6) `ToolSet`. Every call goes through `registry.call`, so validation, the
 * gate, approvals, timeouts, the observer and the envelope hold inside `generateText`, `streamText` and
 * agents. Each tool's `inputSchema` is the contract's parameters through the SDK's `jsonSchema()`, with
 * no SDK-side validation, so bad arguments reach the registry and the model reads its
 * `invalid_arguments` message. `execute` passes the SDK's `abortSignal` and `toolCallId` on, and the
 * SDK's `experimental_context` as the call's `state`. `toModelOutput` sends the envelope's JSON (a
 * failure as the SDK's `error-text`, which Anthropic marks `is_error`). Names a provider refuses
 * (`math.factorial`) get the OpenAI-safe alias as their key. The set is a snapshot of the registry.
 *
 * @example
 * import { generateText, stepCountIs } from 'ai';
 * const result = await generateText({
 *   model, prompt: 'Summarize README.md',
 *   tools: toAiSdkTools(registry),
 *   stopWhen: stepCountIs(5),
 * });
 */
export function toAiSdkTools(registry: Registry, options: AiSdkToolsOptions = {}): ToolSet {
  const output = options.output ?? 'envelope';
  if (output !== 'envelope' && output !== 'value') {
    throw new ToolDefinitionError(
      'invalid_option',
      `toAiSdkTools(): output is ${JSON.stringify(output)}; use "envelope" or "value".`,
    );
  }
  const tools: ToolSet = {};
  for (const contract of selectContracts(registry, options.only, 'toAiSdkTools')) {
    // Defined, not assigned: a tool named "__proto__" (an MCP server may send one) stays an own key.
    Object.defineProperty(tools, providerToolName(contract.name, 'openai'), {
      value: aiSdkTool(registry, contract, output, options.approvals),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return tools;
}

function aiSdkTool(
  registry: Registry,
  contract: ToolContract,
  output: 'envelope' | 'value',
  approvals: ApprovalBridge | undefined,
): Tool<unknown, unknown> {
  const name = contract.name;
  // Under `value`, a cut result loses its notice; the envelope text is kept for toModelOutput.
  const cutTexts = new Map<string, string>();
  const run = async (input: unknown, execution: ToolExecutionOptions): Promise<unknown> => {
    const callOptions = {
      callId: execution.toolCallId,
      state: execution.experimental_context,
      ...(execution.abortSignal ? { signal: execution.abortSignal } : {}),
    };
    const envelope: Envelope = approvals
      ? await approvals.call(registry, name, input, {
          ...callOptions,
          approved: approvedInMessages(execution.messages, execution.toolCallId),
        })
      : await registry.call(name, input, callOptions);
    if (output === 'envelope') return envelope;
    if (!envelope.ok) throw new ToolCallFailedError(envelope);
    if (envelope.truncated) {
      if (cutTexts.size >= 1_000) cutTexts.delete(cutTexts.keys().next().value as string);
      cutTexts.set(execution.toolCallId, JSON.stringify(envelope));
    }
    return envelope.result;
  };
  const toModelOutput = ({ toolCallId, output: result }: { toolCallId: string; output: unknown }) => {
    if (output === 'value') {
      const cut = cutTexts.get(toolCallId);
      cutTexts.delete(toolCallId);
      return { type: 'text', value: cut ?? JSON.stringify({ ok: true, result: result ?? null }) } as const;
    }
    const text = JSON.stringify(result ?? null);
    return isFailure(result)
      ? ({ type: 'error-text', value: text } as const)
      : ({ type: 'text', value: text } as const);
  };
  return {
    ...(contract.title ? { title: contract.title } : {}),
    description: withReturns(contract.description, contract),
    // A copy: the contract is frozen, and a provider package may add to the schema it is handed.
    inputSchema: jsonSchema(structuredClone(contract.parameters) as JSONSchema7),
    ...(contract.examples?.length
      ? { inputExamples: contract.examples.map((example) => ({ input: example.arguments })) }
      : {}),
    ...(approvals
      ? {
          needsApproval: (input: unknown, options: { toolCallId: string; experimental_context?: unknown }) =>
            approvals.needsApproval(registry, name, input, {
              callId: options.toolCallId,
              state: options.experimental_context,
            }),
        }
      : {}),
    execute: run,
    toModelOutput,
  };
}

/**
 * Whether the SDK's approval flow approved this call: an assistant `tool-approval-request` for it, and
 * a `tool-approval-response` to that request with `approved: true`. The SDK runs `execute` for an
 * approved call with exactly these messages (the response is in the last tool message).
 */
function approvedInMessages(messages: readonly ModelMessage[] | undefined, toolCallId: string): boolean {
  if (!Array.isArray(messages)) return false;
  const requests = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId)
        requests.add(part.approvalId);
    }
  }
  if (requests.size === 0) return false;
  let approved = false;
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-response' && requests.has(part.approvalId))
        approved = part.approved === true;
    }
  }
  return approved;
}

/** A failure envelope, as `execute` returned it (or as it came back from stored UI messages). */
function isFailure(value: unknown): value is FailureEnvelope {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as { ok?: unknown }).ok === false &&
    typeof (value as { error?: unknown }).error === 'object'
  );
}
