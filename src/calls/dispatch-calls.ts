import type { ToolContract } from '../contract/index.js';
import type { Envelope } from '../dispatch/envelope.js';
import { ParseFailure, readArguments } from '../dispatch/parse.js';
import type { CallOptions, Registry } from '../registry/registry.js';
import { type ToolNameMap, toolNameMap } from '../schema/names.js';
import { restoreStrictArguments } from '../schema/restore-strict.js';
import type { ProviderFormat } from '../schema/types.js';

/** One tool call as a provider sent it, before the name is mapped back. */
export interface ProviderCall {
  /** The provider's id for the call (OpenAI `id`/`call_id`, Anthropic `id`, Gemini `id`), when it has one. */
  readonly id: string | undefined;
  /** The name the provider used (an alias when the real name was not allowed there). */
  readonly name: string;
  /** The arguments as sent: a JSON string (OpenAI) or an object. */
  readonly arguments: unknown;
}

/** A call after it ran. */
export interface CallOutcome {
  readonly call: ProviderCall;
  /** The registry's name of the tool (the alias mapped back). */
  readonly tool: string;
  readonly envelope: Envelope;
  /** The envelope's JSON, exactly what `registry.dispatch` answers. */
  readonly text: string;
}

/** Options of the `run…` helpers. */
export interface RunCallsOptions extends Omit<CallOptions, 'callId'> {
  /** How many calls run at once (default 4). Results keep the order of the calls. */
  readonly concurrency?: number;
  /** The tools were sent with `strict: true` (OpenAI): a `null` for an optional field means "absent". */
  readonly strict?: boolean;
}

const nameMaps = new WeakMap<readonly ToolContract[], Map<ProviderFormat, ToolNameMap>>();

function namesOf(registry: Registry, format: ProviderFormat): ToolNameMap {
  const contracts = registry.schemas();
  let byFormat = nameMaps.get(contracts);
  if (!byFormat) {
    byFormat = new Map();
    nameMaps.set(contracts, byFormat);
  }
  let names = byFormat.get(format);
  if (!names) {
    names = toolNameMap(contracts, format);
    byFormat.set(format, names);
  }
  return names;
}

/**
 * Runs provider calls through a registry: each alias is mapped back to the real name, OpenAI strict
 * nulls are restored to "absent" (or the default) before validation, and the calls run in parallel up
 * to `concurrency`. Never rejects: every call ends in an envelope.
 *
 * @example
 * const outcomes = await dispatchProviderCalls(registry, calls, 'openai', { strict: true });
 */
export async function dispatchProviderCalls(
  registry: Registry,
  calls: readonly ProviderCall[],
  format: ProviderFormat,
  options: RunCallsOptions = {},
): Promise<CallOutcome[]> {
  const names = namesOf(registry, format);
  const restore = options.strict === true && (format === 'openai' || format === 'openai-responses');
  const { concurrency: requested, strict: _strict, ...callOptions } = options;
  const concurrency = Math.max(1, Math.floor(requested ?? 4));
  const outcomes = new Array<CallOutcome>(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index]!;
      const tool = names.fromProvider(call.name);
      let args = call.arguments;
      if (restore) {
        const contract = registry.get(tool)?.contract;
        const parsed = readArguments(args);
        // A call that does not parse goes on as it came, so the registry answers with invalid_json.
        if (contract && !(parsed instanceof ParseFailure))
          args = restoreStrictArguments(parsed, contract.parameters);
      }
      const envelope = await registry.call(tool, args, { ...callOptions, callId: call.id });
      outcomes[index] = { call, tool, envelope, text: JSON.stringify(envelope) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return outcomes;
}
