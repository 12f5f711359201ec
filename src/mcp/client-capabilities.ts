import type { ClientCapabilities } from '@modelcontextprotocol/server';

/**
 * Whether these capabilities accept a form elicitation. An empty `elicitation: {}` means form mode
 * (the 2025-06-18 shape); 2025-11-25 and later name the modes.
 *
 * @example
 * supportsFormElicitation({ elicitation: {} }); // true
 */
export function supportsFormElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation || typeof elicitation !== 'object') return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}
