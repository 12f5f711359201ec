const VERSION = '2026-07-28';

/** A revision 2026-07-28 `tools/call` of `name`, raw, with the given Authorization header. */
export async function call(
  url: string,
  name: string,
  authorization?: string,
  args: Record<string, unknown> = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    }),
  });
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate') ?? '',
    body: await response.text(),
  };
}
