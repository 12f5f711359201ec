import { catalogAcceptKey, SINGULAR } from './catalog.js';
import type { GatewayServerStatus } from './gateway.js';

/**
 * What `gateway check` says of a server's resources, templates and prompts: how many it offers, and
 * which are withheld (with the diff or the marked text, and how to accept them), not served because
 * another server keeps the URI, served under a prefixed name, no longer listed or not registrable.
 *
 * @example
 * for (const line of catalogCheckLines(status)) console.log(line);
 */
export function catalogCheckLines(server: GatewayServerStatus): string[] {
  const { catalog } = server;
  const lines: string[] = [];
  const offered = (['resources', 'templates', 'prompts'] as const)
    .filter((kind) => catalog[kind] !== undefined)
    .map((kind) => `${catalog[kind]} ${kind}`);
  if (offered.length > 0) lines.push(`  offers ${offered.join(', ')}`);
  for (const item of catalog.withheld) {
    const what = `${SINGULAR[item.kind]} "${item.key}"`;
    lines.push(
      item.reason === 'changed'
        ? `  ${what} changed since it was pinned (withheld):\n${indent(item.descriptionDiff ?? '', 4)}`
        : item.reason === 'hidden-instructions'
          ? `  ${what} is new and has hidden instructions (withheld until accepted: toolpact gateway pin --accept ${catalogAcceptKey(server.name, item.kind, item.key)}):${(item.findings ?? []).map((found) => `\n    ${found.path} (${found.rule}): ${found.marked}`).join('')}`
          : `  ${what} is new (withheld: newTools is "withhold")`,
    );
  }
  for (const item of catalog.shadowed) {
    lines.push(
      `  ${SINGULAR[item.kind]} "${item.key}" is not served: ${item.owner}, earlier in the config, offers it`,
    );
  }
  for (const collision of catalog.collisions) {
    lines.push(
      `  prompt "${collision.remoteName}" is served as "${collision.name}": ${collision.owner ? `the name "${collision.wanted}" belongs to the prompt "${collision.owner.remoteName}" of ${collision.owner.server}` : `the name "${collision.wanted}" is taken`}`,
    );
  }
  if (catalog.removed.length > 0) lines.push(`  no longer listed: ${catalog.removed.join(', ')}`);
  for (const failed of catalog.failed) {
    lines.push(`  not served: ${SINGULAR[failed.kind]} "${failed.key}": ${failed.reason}`);
  }
  return lines;
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => `${pad}${line}`)
    .join('\n');
}
