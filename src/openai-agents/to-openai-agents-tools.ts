import type { FunctionTool, RunContext } from '@openai/agents';
import type { ToolContract } from '../contract/index.js';
import type { Envelope } from '../dispatch/envelope.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { ApprovalBridge } from '../integrations/approval-bridge.js';
import { selectContracts } from '../integrations/select-contracts.js';
import type { Registry } from '../registry/registry.js';
import { restoreStrictArguments } from '../schema/restore-strict.js';
import { toProviderTools } from '../schema/to-provider-tools.js';
import type { OpenAIResponsesTool, SchemaDiagnostic } from '../schema/types.js';
import { tool } from './peer.js';

/** Options of {@link toOpenAIAgentsTools}. */
export interface OpenAIAgentsToolsOptions {
  /**
   * Send the tools in strict mode (default true, as the Agents SDK does), with toolpact's strict
   * adapter: optional fields become required and nullable, and a `null` the model sends for one is
   * made "absent" again before validation. A tool whose schema strict mode cannot express goes
   * non-strict, and `onDiagnostics` is told why.
   */
  readonly strict?: boolean;
  /**
   * From `approvalBridge(gate)`: the gate's `ask` becomes the tool's `needsApproval`, and an approval
   * given through the run state (`state.approve(item)`) lets that one call through the gate. Without
   * it, an `ask` goes to the registry's own approver.
   */
  readonly approvals?: ApprovalBridge;
  /** Only these tools, by registry name (default: every registered tool). */
  readonly only?: readonly string[];
  /** The `state` each call runs with, from the run context (default: `runContext.context`). */
  readonly state?: (runContext: RunContext<unknown>) => unknown;
  /** Told what the schema adapter changed or could not carry, once, when the tools are built. */
  readonly onDiagnostics?: (diagnostics: readonly SchemaDiagnostic[]) => void;
}

/**
 * The registry as `@openai/agents` function tools, for an `Agent`'s `tools`. Each tool's schema comes
 * from toolpact's Responses adapter (strict by default), its description carries the return contract,
 * and every call goes through `registry.call`, so validation, the gate, approvals, timeouts, the
 * observer and the envelope hold inside the `Runner`. The model reads the envelope's JSON as the
 * function call output. With `approvals`, `needsApproval` is the gate's `ask`; the run's signal aborts
 * the call; `runContext.context` is the call's state. Names are the adapter's OpenAI-safe aliases.
 *
 * @example
 * import { Agent, run } from '@openai/agents';
 * const agent = new Agent({ name: 'notes', instructions, tools: toOpenAIAgentsTools(registry, { approvals }) });
 * let result = await run(agent, 'Change the todo to bread.');
 * for (const item of result.interruptions) result.state.approve(item);
 * result = await run(agent, result.state);
 */
export function toOpenAIAgentsTools(
  registry: Registry,
  options: OpenAIAgentsToolsOptions = {},
): FunctionTool[] {
  const contracts = selectContracts(registry, options.only, 'toOpenAIAgentsTools');
  const strict = options.strict ?? true;
  const loose = toProviderTools(contracts, 'openai-responses', { strict: false, returns: 'description' });
  const tight = strict
    ? toProviderTools(contracts, 'openai-responses', { strict: true, returns: 'description' })
    : loose;
  const refused = new Set(
    tight.diagnostics
      .filter((diagnostic) => diagnostic.severity === 'error')
      .map((diagnostic) => diagnostic.tool),
  );
  options.onDiagnostics?.(tight.diagnostics);
  const state = options.state ?? ((runContext: RunContext<unknown>) => runContext.context);
  const names = new Map<string, string>();
  return contracts.map((contract, index) => {
    const useStrict = strict && !refused.has(contract.name);
    const shape = (useStrict ? tight : loose).tools[index]!;
    const built = agentsTool(registry, contract, shape, useStrict, options.approvals, state);
    const other = names.get(built.name);
    if (other !== undefined) {
      throw new ToolDefinitionError(
        'duplicate_name',
        `The tools "${other}" and "${contract.name}" would both be called "${built.name}" in the Agents SDK, which turns every character but letters and digits into "_". Rename one of them.`,
        contract.name,
      );
    }
    names.set(built.name, contract.name);
    return built;
  });
}

function agentsTool(
  registry: Registry,
  contract: ToolContract,
  shape: OpenAIResponsesTool,
  strict: boolean,
  approvals: ApprovalBridge | undefined,
  state: (runContext: RunContext<unknown>) => unknown,
): FunctionTool {
  const name = contract.name;
  // Strict mode sends `null` for an optional field the model leaves out; the contract wants it absent.
  const restore = (input: unknown) => (strict ? restoreStrictArguments(input, contract.parameters) : input);
  const built = tool({
    name: shape.name,
    description: shape.description ?? contract.description,
    parameters: structuredClone(shape.parameters) as unknown as OpenParameters,
    // The schema is already the strict adapter's; built non-strict, the SDK neither rewrites it nor
    // strips nulls its own way, and `strict` is set on the tool below.
    strict: false,
    needsApproval: approvals
      ? async (runContext, input, callId) =>
          approvals.needsApproval(registry, name, restore(input), {
            ...(callId !== undefined ? { callId } : {}),
            state: state(runContext as RunContext<unknown>),
          })
      : false,
    execute: async (input, runContext, details) => {
      const callId = details?.toolCall?.callId;
      const callOptions = {
        ...(callId !== undefined ? { callId } : {}),
        ...(details?.signal ? { signal: details.signal } : {}),
        state: runContext ? state(runContext as RunContext<unknown>) : undefined,
      };
      const approved =
        callId !== undefined && runContext?.isToolApproved({ toolName: shape.name, callId }) === true;
      const envelope: Envelope = approvals
        ? await approvals.call(registry, name, restore(input), { ...callOptions, approved })
        : await registry.call(name, restore(input), callOptions);
      return JSON.stringify(envelope);
    },
  });
  return { ...built, strict } as unknown as FunctionTool;
}

/** The SDK's type for a plain JSON Schema object (it types strict and non-strict schemas apart). */
type OpenParameters = Extract<
  Parameters<typeof tool>[0]['parameters'],
  { readonly additionalProperties: true }
>;
