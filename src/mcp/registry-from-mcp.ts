import { ToolDefinitionError } from '../errors/index.js';
import { Registry } from '../registry/registry.js';
import type { McpServerTarget } from './connect.js';
import { type ImportMcpOptions, importMcpTools, type McpImport } from './import-mcp-tools.js';
import { splitCommandLine } from './split-command-line.js';

/**
 * The target a command-line argument names: an `http(s)://` URL, or a command line to start over stdio
 * (split as a shell would split simple words, run without a shell).
 *
 * @example
 * mcpTargetFromArgument('node server.js --root "My Notes"', process.cwd());
 * // { command: 'node', args: ['server.js', '--root', 'My Notes'], cwd: process.cwd() }
 */
export function mcpTargetFromArgument(argument: string, cwd: string): McpServerTarget {
  const trimmed = argument.trim();
  if (/^https?:\/\//i.test(trimmed)) return { url: trimmed };
  let words: string[];
  try {
    words = splitCommandLine(trimmed);
  } catch (error) {
    throw new ToolDefinitionError('invalid_option', error instanceof Error ? error.message : String(error));
  }
  const [command, ...args] = words;
  if (!command) {
    throw new ToolDefinitionError(
      'invalid_option',
      'Give the command that starts the MCP server, or its URL.',
    );
  }
  return { command, args, cwd };
}

/**
 * A fresh registry holding the tools of a running MCP server (for `toolpact inspect --mcp`), and the
 * import, which is attached to the registry: closing either one ends the connection. `options` chooses
 * the era (`era`, `prior`, `probeTimeoutMs`); the server's list changes are not followed.
 *
 * @example
 * const { registry, imported } = await registryFromMcp('npx -y @modelcontextprotocol/server-everything', cwd);
 * console.log(registry.schemas().map((contract) => contract.name));
 * await imported.close();
 */
export async function registryFromMcp(
  argument: string,
  cwd: string,
  options: Pick<ImportMcpOptions, 'era' | 'prior' | 'probeTimeoutMs'> = {},
): Promise<{ registry: Registry; imported: McpImport }> {
  const registry = new Registry();
  const imported = await importMcpTools(registry, mcpTargetFromArgument(argument, cwd), {
    ...options,
    followChanges: false,
  });
  return { registry, imported };
}
