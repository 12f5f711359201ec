import type { FailureEnvelope } from '../dispatch/envelope.js';

/** Why a registry refused to read a resource, get a prompt or complete an argument. */
export type RegistryRequestCode =
  /** No resource has that URI (nor matches it), or no prompt has that name. */
  | 'not_found'
  /** A prompt's arguments are missing, unknown or not strings; a completion names nothing completable. */
  | 'invalid_arguments'
  /** The gate refused (or asked, and nobody approved): `failure` is the envelope a tool call would answer. */
  | 'denied'
  /** The resource's `read` or the prompt's `get` threw, or answered something that is not content. */
  | 'failed'
  /** The registry is closed. */
  | 'closed';

/**
 * A request for a resource, a prompt or a completion that the registry refused: what the client
 * asked for was wrong (or is not allowed), so it is the client's to correct. `message` says what was
 * asked, what was wrong and what to do, safe to show (no stack, no host path); the MCP server maps
 * `code` to a protocol error (`not_found` of a resource is -32002, as the spec asks).
 *
 * @example
 * try { await registry.readResource('notes://missing') } catch (error) {
 *   if (error instanceof RegistryRequestError && error.code === 'not_found') listAgain();
 * }
 */
export class RegistryRequestError extends Error {
  override readonly name = 'RegistryRequestError';
  constructor(
    readonly code: RegistryRequestCode,
    /** What was asked for. */
    readonly target: 'resource' | 'prompt' | 'completion',
    /** The resource's URI or the prompt's name, as the request gave it. */
    readonly subject: string,
    message: string,
    /** The gate's refusal, for `denied`. */
    readonly failure?: FailureEnvelope,
  ) {
    super(message);
  }
}
