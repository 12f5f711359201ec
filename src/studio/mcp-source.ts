import type { McpServerTarget } from '../mcp/connect.js';
import { Registry, type RegistryOptions } from '../registry/registry.js';
import type { StudioSource } from './start-studio.js';

/**
 * The `load` of a studio that shows an MCP server's tools: a registry with the studio's gate, filled
 * by `importMcpTools` (following the server's `list_changed`). Closing the source closes that registry,
 * and with it the import attached to it: the connection ends and a stdio server is stopped.
 * The MCP SDK loads only when this runs.
 *
 * @example
 * const studio = await startStudio({
 *   label: 'server-everything',
 *   kind: 'mcp',
 *   load: mcpStudioSource({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] }),
 * });
 */
export function mcpStudioSource(
  target: McpServerTarget,
): (options: RegistryOptions) => Promise<StudioSource> {
  return async (options) => {
    const { importMcpTools } = await import('../mcp/import-mcp-tools.js');
    const registry = new Registry(options);
    const imported = await importMcpTools(registry, target);
    return {
      registry,
      get skipped() {
        return imported.skipped();
      },
      close: () => registry.close(),
    };
  };
}
