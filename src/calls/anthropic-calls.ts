import type { Registry } from '../registry/registry.js';
import { describePayload, expectString, own, ProviderPayloadError } from '../schema/payload-error.js';
import {
  type CallOutcome,
  dispatchProviderCalls,
  type ProviderCall,
  type RunCallsOptions,
} from './dispatch-calls.js';

/** A `tool_result` content block. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error?: true;
}

/** The user message carrying the results (tool results must come first in it). */
export interface AnthropicToolResultMessage {
  readonly role: 'user';
  readonly content: AnthropicToolResultBlock[];
}

/**
 * The `tool_use` blocks of a Messages API answer: a `Message` or its `content` array.
 *
 * @example
 * const calls = readAnthropicToolUses(await anthropic.messages.create({ model, max_tokens, messages, tools }));
 */
export function readAnthropicToolUses(message: unknown): ProviderCall[] {
  const blocks = Array.isArray(message) ? message : own(message, 'content');
  const path = Array.isArray(message) ? '$' : '$.content';
  if (!Array.isArray(blocks))
    throw new ProviderPayloadError(path, 'a Message or its content blocks', describePayload(message));
  const calls: ProviderCall[] = [];
  for (const [index, block] of blocks.entries()) {
    if (own(block, 'type') !== 'tool_use') continue;
    const at = `${path}[${index}]`;
    calls.push({
      id: expectString(own(block, 'id'), `${at}.id`, 'the tool_use id (a string)'),
      name: expectString(own(block, 'name'), `${at}.name`, 'the tool name (a string)'),
      arguments: own(block, 'input'),
    });
  }
  return calls;
}

/**
 * One `tool_result` block per outcome, `is_error: true` on failures.
 *
 * @example
 * const reply = toAnthropicToolResults(await dispatchProviderCalls(registry, readAnthropicToolUses(message), 'anthropic'));
 */
export function toAnthropicToolResults(outcomes: readonly CallOutcome[]): AnthropicToolResultMessage {
  return {
    role: 'user',
    content: outcomes.map((outcome) => ({
      type: 'tool_result',
      tool_use_id: outcome.call.id ?? '',
      content: outcome.text,
      ...(outcome.envelope.ok ? {} : { is_error: true as const }),
    })),
  };
}

/**
 * Reads the `tool_use` blocks, runs them and answers with the user message of `tool_result` blocks.
 *
 * @example
 * messages.push({ role: 'assistant', content: message.content }, await runAnthropicToolUses(registry, message));
 */
export async function runAnthropicToolUses(
  registry: Registry,
  message: unknown,
  options?: RunCallsOptions,
): Promise<AnthropicToolResultMessage> {
  return toAnthropicToolResults(
    await dispatchProviderCalls(registry, readAnthropicToolUses(message), 'anthropic', options),
  );
}
