import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Registry } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp/index.js';

/**
 * An MCP client connected in memory to a server over `registry`, reporting itself as `name`. With
 * `clientId`, every message carries that `authInfo`, as a transport that authenticated the caller does.
 */
export async function connectAs(registry: Registry, name: string, clientId?: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(registry).connect(serverSide);
  if (clientId !== undefined) {
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message: Parameters<Transport['send']>[0]) =>
      send(message, { authInfo: { token: 'opaque', clientId, scopes: [] } });
  }
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}
