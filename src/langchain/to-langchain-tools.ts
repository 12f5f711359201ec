import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { StructuredTool as LangChainStructuredTool, ToolRunnableConfig } from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import type { ToolContract } from '../contract/index.js';
import type { Envelope } from '../dispatch/envelope.js';
import { selectContracts } from '../integrations/select-contracts.js';
import type { Registry } from '../registry/registry.js';
import { providerToolName } from '../schema/names.js';
import { withReturns } from '../schema/returns.js';
import { StructuredTool, ToolInputParsingException, ToolMessage } from './peer.js';

/** Options of {@link toLangChainTools}. */
export interface LangChainToolsOptions {
  /** Only these tools, by registry name (default: every registered tool). */
  readonly only?: readonly string[];
  /** The `state` each call runs with, from the tool's run config (default: `config.context`). */
  readonly state?: (config: ToolRunnableConfig) => unknown;
}

/**
 * The registry as `@langchain/core` structured tools, one per contract, with the contract's JSON
 * Schema as `schema` (what `bindTools` sends). Every call goes through `registry.call`: validation, the
 * gate, approvals, timeouts, the observer and the envelope hold in any LangChain loop. Invoked with a
 * tool call (`tool.invoke(aiMessage.tool_calls[0])`), a tool answers a `ToolMessage` whose content is
 * the envelope's JSON, whose `artifact` is the envelope and whose `status` is `error` for a failure;
 * invoked with plain arguments, it answers the JSON text. Arguments that LangChain's own schema check
 * refuses still reach the registry, so the model reads toolpact's `invalid_arguments` message rather
 * than LangChain's. The run config's `signal` aborts the call. Names a provider refuses get the
 * OpenAI-safe alias. The tools are a snapshot of the registry.
 *
 * @example
 * const tools = toLangChainTools(registry);
 * const ai = await model.bindTools(tools).invoke(messages);
 * for (const call of ai.tool_calls ?? []) messages.push(await byName[call.name].invoke(call));
 */
export function toLangChainTools(
  registry: Registry,
  options: LangChainToolsOptions = {},
): LangChainStructuredTool[] {
  const state = options.state ?? ((config: ToolRunnableConfig) => config.context);
  return selectContracts(registry, options.only, 'toLangChainTools').map(
    (contract) => new RegistryTool(registry, contract, state),
  );
}

/** One registry tool as a LangChain structured tool. */
class RegistryTool extends StructuredTool<JSONSchema> {
  override name: string;
  override description: string;
  override schema: JSONSchema;
  readonly #registry: Registry;
  readonly #tool: string;
  readonly #state: (config: ToolRunnableConfig) => unknown;

  constructor(registry: Registry, contract: ToolContract, state: (config: ToolRunnableConfig) => unknown) {
    super({ metadata: { toolpact: contract.name, category: contract.category } });
    this.name = providerToolName(contract.name, 'openai');
    this.description = withReturns(contract.description, contract);
    // A copy: LangChain's validator (@cfworker/json-schema) writes into the schema it is given, and a
    // contract is frozen.
    this.schema = structuredClone(contract.parameters) as JSONSchema;
    this.#registry = registry;
    this.#tool = contract.name;
    this.#state = state;
  }

  // LangChain checks the arguments against `schema` before `_call` and throws on a mismatch, with its
  // own wording. The registry is the authority on arguments, so such a call goes to it all the same.
  override async call(
    arg: Parameters<LangChainStructuredTool<JSONSchema>['call']>[0],
    configArg?: Parameters<LangChainStructuredTool<JSONSchema>['call']>[1],
    tags?: string[],
  ): Promise<unknown> {
    try {
      return await super.call(arg, configArg, tags);
    } catch (error) {
      if (!(error instanceof ToolInputParsingException)) throw error;
      const config = configOf(configArg);
      const toolCall = isToolCall(arg) ? arg : config.toolCall;
      const args = isToolCall(arg) ? arg.args : arg;
      return this.#answer(args, config, toolCall?.id);
    }
  }

  protected override async _call(
    arg: unknown,
    _runManager?: CallbackManagerForToolRun,
    config: ToolRunnableConfig = {},
  ): Promise<unknown> {
    return this.#answer(arg, config, config.toolCall?.id);
  }

  async #answer(args: unknown, config: ToolRunnableConfig, callId: string | undefined): Promise<unknown> {
    const envelope: Envelope = await this.#registry.call(this.#tool, args, {
      ...(callId !== undefined ? { callId } : {}),
      ...(config.signal ? { signal: config.signal } : {}),
      state: this.#state(config),
    });
    const text = JSON.stringify(envelope);
    if (callId === undefined) return text;
    return new ToolMessage({
      content: text,
      tool_call_id: callId,
      name: this.name,
      status: envelope.ok ? 'success' : 'error',
      artifact: envelope,
    });
  }
}

interface ToolCallShape {
  readonly type?: string;
  readonly id?: string;
  readonly name: string;
  readonly args: unknown;
}

function isToolCall(value: unknown): value is ToolCallShape {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as ToolCallShape).type === 'tool_call' &&
    'args' in value &&
    'name' in value
  );
}

// The second argument of `call` may also be a callbacks list; only a config object carries a signal.
function configOf(value: unknown): ToolRunnableConfig {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as ToolRunnableConfig)
    : {};
}
