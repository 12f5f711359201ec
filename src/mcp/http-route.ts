import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from '../auth/authenticator.js';
import type { OriginPolicy } from './origin-check.js';

/** What {@link serveHttp} hands a mounted route: the MCP endpoint's own authenticator and Origin policy. */
export interface HttpRouteContext {
  /** The MCP endpoint's authenticator; undefined when the server authenticates no one. */
  readonly auth: Authenticator | undefined;
  /** The MCP endpoint's Origin and Host policy (the DNS-rebinding defence). */
  readonly origins: OriginPolicy;
}

/**
 * An HTTP handler served beside the MCP endpoint (`serveHttp`'s `routes`), such as the gateway's team
 * sign-in link. It authenticates its requests with the context's authenticator, so that one auth
 * configuration covers every path the server answers.
 *
 * @example
 * const route: HttpRoute = {
 *   owns: (pathname) => pathname.startsWith('/mcp/hello'),
 *   handle: async (request, response) => void response.writeHead(200).end('hello'),
 * };
 * await serveHttp(registry, { routes: [route] });
 */
export interface HttpRoute {
  /** Whether a request path belongs to the route (never the MCP endpoint's own path). */
  owns(pathname: string): boolean;
  handle(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    context: HttpRouteContext,
  ): Promise<void>;
}
