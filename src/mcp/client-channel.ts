import type {
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
  ListRootsResult,
  Server,
} from '@modelcontextprotocol/server';
import { supportsFormElicitation } from './request-context.js';

/**
 * The one client of a legacy stdio connection, reachable outside any call: what a server in front of
 * other servers (the gateway) uses to pass on what they ask between calls.
 *
 * @example
 * serveStdio(registry, { onClient: (client) => { if (client.capabilities?.sampling) keep(client); } });
 */
export interface McpClientChannel {
  /** What the client declared at `initialize`. */
  readonly capabilities: ClientCapabilities | undefined;
  /** Whether the client can answer a form elicitation. */
  readonly canElicit: boolean;
  /** Asks the client's model (`sampling/createMessage`). Rejects when the client cannot. */
  sample(params: CreateMessageRequest['params']): Promise<CreateMessageResult>;
  /** Asks the user (`elicitation/create`, form mode). Rejects when the client cannot. */
  elicit(params: Omit<ElicitRequestFormParams, 'mode'>): Promise<ElicitResult>;
  /** Asks the client for its roots (`roots/list`). Rejects when the client cannot. */
  listRoots(): Promise<ListRootsResult>;
}

/**
 * The channel to the client of a legacy server instance, once it has initialized.
 *
 * @example
 * server.oninitialized = () => onClient(clientChannel(server));
 */
export function clientChannel(server: Server): McpClientChannel {
  const capabilities = () => server.getClientCapabilities();
  return {
    get capabilities() {
      return capabilities();
    },
    get canElicit() {
      return supportsFormElicitation(capabilities());
    },
    async sample(params) {
      if (!capabilities()?.sampling) throw new Error('The MCP client did not declare sampling.');
      return (await server.createMessage(params)) as CreateMessageResult;
    },
    async elicit(params) {
      if (!supportsFormElicitation(capabilities()))
        throw new Error('The MCP client did not declare elicitation.');
      return server.elicitInput({ mode: 'form', ...params } as ElicitRequestFormParams);
    },
    async listRoots() {
      if (!capabilities()?.roots) throw new Error('The MCP client did not declare roots.');
      return server.listRoots();
    },
  };
}
