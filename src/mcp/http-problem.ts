import type { ServerResponse } from 'node:http';
import type { AuthRefusal } from '../auth/authenticator.js';

/**
 * Answers an HTTP API request that the authenticator refused: the MCP endpoint's status and
 * `WWW-Authenticate`, with a problem body (`{ error: { type, message } }`).
 *
 * @example
 * if (!outcome.ok) return refuseAuth(response, outcome);
 */
export function refuseAuth(response: ServerResponse, refusal: AuthRefusal): void {
  if (refusal.wwwAuthenticate) response.setHeader('WWW-Authenticate', refusal.wwwAuthenticate);
  if (refusal.status === 503) response.setHeader('Retry-After', '5');
  problem(response, refusal.status, refusal.error ?? 'no_token', refusal.message);
}

/** Answers `status` with the problem body `{ error: { type, message } }`. */
export function problem(response: ServerResponse, status: number, type: string, message: string): void {
  json(response, status, { error: { type, message } });
}

/** Answers `status` with `body` as JSON (no body to a HEAD request). */
export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(response.req?.method === 'HEAD' ? undefined : JSON.stringify(body));
}
