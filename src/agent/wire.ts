import { own } from '../schema/payload-error.js';
import type { TokenUsage } from './model.js';

/** A count in a provider's `usage` object: a finite number, else 0. */
export function countAt(value: unknown, key: string): number {
  const count = own(value, key);
  return typeof count === 'number' && Number.isFinite(count) && count > 0 ? count : 0;
}

/** Usage from the fields a provider names, or undefined when it sent no usage object. */
export function usageOf(
  usage: unknown,
  input: readonly string[],
  output: readonly string[],
): TokenUsage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const key of input) inputTokens += countAt(usage, key);
  for (const key of output) outputTokens += countAt(usage, key);
  return { inputTokens, outputTokens };
}

/** A string field, or undefined. */
export function stringAt(value: unknown, key: string): string | undefined {
  const field = own(value, key);
  return typeof field === 'string' ? field : undefined;
}

/** Whether an SDK answered a stream (an async iterable of events) rather than one payload. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** The request body: the caller's extra parameters under the ones the loop owns. */
export function bodyOf(
  params: Readonly<Record<string, unknown>> | undefined,
  owned: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...params };
  for (const [key, value] of Object.entries(owned)) if (value !== undefined) body[key] = value;
  return body;
}
