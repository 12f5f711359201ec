import { ProviderPayloadError } from '../schema/payload-error.js';

/** Why a model request failed, as `runAgent` reports it with `stopReason: 'model_error'`. */
export interface AgentModelError {
  readonly type: 'model_error';
  /** What failed, what came back and what to do, in one paragraph. */
  readonly message: string;
  /** The step whose request failed (0-based); the steps before it are complete in the result. */
  readonly step: number;
  /** The HTTP status the provider answered, when there was one. */
  readonly status?: number;
  /** The SDK's error class (`RateLimitError`, `APIConnectionError`, …) or `ProviderPayloadError`. */
  readonly name: string;
}

const MAX_DETAIL = 300;

/**
 * Describes an error thrown by a provider SDK (after its own retries) or by an adapter's reader, without
 * the stack: the status, the SDK's class and message, the network cause for a connection failure.
 */
export function toModelError(error: unknown, step: number, provider: string, model: string): AgentModelError {
  const status = numberField(error, 'status');
  const name = errorName(error);
  let detail = error instanceof Error ? error.message : String(error);
  const cause = causeCode(error);
  if (cause !== undefined && !detail.includes(cause)) detail = `${detail} (${cause})`;
  if (detail.length > MAX_DETAIL) detail = `${detail.slice(0, MAX_DETAIL)}…`;
  const advice =
    error instanceof ProviderPayloadError
      ? 'The answer does not have the shape the provider documents; check the base URL and that the server speaks this API.'
      : status === 429
        ? "The provider is rate limiting; the SDK's retries were spent. Wait, raise the client's maxRetries, or lower the request rate."
        : status === 401 || status === 403
          ? 'Check the API key and its permissions.'
          : status !== undefined && status >= 500
            ? "The provider failed; the SDK's retries were spent. Try again later or raise the client's maxRetries."
            : status === undefined && cause !== undefined
              ? 'The server could not be reached; check the base URL and that the server is running.'
              : 'Check the request options (model name, parameters) against the provider documentation.';
  const what = status === undefined ? name : `${name}, HTTP ${status}`;
  return {
    type: 'model_error',
    message: `The ${provider} request for model "${model}" failed at step ${step + 1} (${what}): ${detail} ${advice} The transcript up to this request is kept in the result's messages.`,
    step,
    ...(status !== undefined ? { status } : {}),
    name,
  };
}

function numberField(value: unknown, key: string): number | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'number' && Number.isInteger(field) ? field : undefined;
}

function errorName(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  if (error.name && error.name !== 'Error') return error.name;
  const constructorName = error.constructor?.name;
  return constructorName && constructorName !== 'Object' ? constructorName : 'Error';
}

/** The system error code under a fetch failure (`ECONNREFUSED`, `ENOTFOUND`), a few causes deep. */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
