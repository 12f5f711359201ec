/** The `_meta` keys of the revision 2026-07-28 envelope. */
export const META = 'io.modelcontextprotocol/';

/**
 * A `server/discover` line (newline-delimited JSON-RPC) as the v2 client's era probe sends it; `meta`
 * adds to its envelope, or replaces a key of it.
 */
export function discoverLine(id: string | number, meta: Record<string, unknown> = {}): string {
  return `${JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'server/discover',
    params: {
      _meta: {
        [`${META}protocolVersion`]: '2026-07-28',
        [`${META}clientInfo`]: { name: 'probe', version: '1.0.0' },
        [`${META}clientCapabilities`]: { roots: { listChanged: true }, elicitation: { form: {} } },
        ...meta,
      },
    },
  })}\n`;
}
