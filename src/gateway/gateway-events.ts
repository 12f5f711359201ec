import type { CallRecord } from '../dispatch/call.js';
import { catalogAcceptKey, SINGULAR } from './catalog.js';
import type { CatalogServerPlan } from './plan-catalog.js';
import type { NameCollision, WithheldTool } from './plan-tools.js';
import { DEFINITION_CHANGED } from './served-tool.js';

/** Where the gateway's own events go: lines for the operator, records for the audit. */
export interface GatewayEventSinks {
  readonly log: (line: string) => void;
  readonly audit?: (record: CallRecord) => unknown;
}

/**
 * Reports a withheld tool once per definition (`reported` keeps what was said): a line for the operator
 * with the description's diff, and an audit record whose outcome is `tool_definition_changed`.
 *
 * @example
 * reportWithheld(entry.reported, withheld, digest, { log, audit });
 */
export function reportWithheld(
  reported: Set<string>,
  withheld: WithheldTool,
  digest: string,
  sinks: GatewayEventSinks,
): void {
  const key = `${withheld.remoteName}\u0000${digest}`;
  if (reported.has(key)) return;
  reported.add(key);
  if (withheld.reason === 'hidden-instructions') {
    sinks.log(
      `${withheld.server}: the new tool "${withheld.remoteName}" has hidden instructions in its definition and is withheld; toolpact gateway check shows the text, and toolpact gateway pin --accept ${withheld.server}/${withheld.remoteName} accepts it.`,
    );
  } else if (withheld.reason === 'new') {
    sinks.log(
      `${withheld.server}: the new tool "${withheld.remoteName}" is withheld (newTools is "withhold"); accept it with toolpact gateway pin.`,
    );
  } else {
    sinks.log(
      `${withheld.server}: the definition of "${withheld.remoteName}" changed since it was pinned, so it is withheld. Review the change and accept it with toolpact gateway pin.\n  description:\n${indent(withheld.descriptionDiff ?? '(the description is the same; the schema or annotations changed)')}`,
    );
  }
  audit(sinks, {
    tool: withheld.name,
    category: undefined,
    callId: undefined,
    arguments: {
      server: withheld.server,
      remoteName: withheld.remoteName,
      reason: withheld.reason,
      ...(withheld.descriptionDiff ? { descriptionDiff: withheld.descriptionDiff } : {}),
    },
    decision: undefined,
    outcome: DEFINITION_CHANGED,
    startedAt: Date.now(),
    durationMs: 0,
    state: undefined,
  });
}

/** The audit outcome of a tool served under a prefixed name because its own name belongs to another. */
export const NAME_COLLISION = 'tool_name_collision';

/**
 * Reports once a tool served under a prefixed name because its own is owned by another: a line for
 * the operator, and an audit record whose outcome is `tool_name_collision`.
 *
 * @example
 * reportCollision(entry.reported, collision, { log, audit });
 */
export function reportCollision(
  reported: Set<string>,
  collision: NameCollision,
  sinks: GatewayEventSinks,
): void {
  const key = `collision:${collision.remoteName}\u0000${collision.name}`;
  if (reported.has(key)) return;
  reported.add(key);
  const { owner } = collision;
  const holder = owner
    ? `the tool "${owner.remoteName}" of the server "${owner.server}" owns that name, and calls to it still go there`
    : 'that name is taken outside the servers of the config';
  sinks.log(
    `${collision.server}: its tool "${collision.remoteName}" is served as "${collision.name}": ${holder}. Names are owned in the lock: to hand the name over, change the two tools' "name" in the lock file.`,
  );
  audit(sinks, {
    tool: collision.name,
    category: undefined,
    callId: undefined,
    arguments: {
      server: collision.server,
      remoteName: collision.remoteName,
      wanted: collision.wanted,
      ...(owner ? { owner: { server: owner.server, remoteName: owner.remoteName } } : {}),
    },
    decision: undefined,
    outcome: NAME_COLLISION,
    startedAt: Date.now(),
    durationMs: 0,
    state: undefined,
  });
}

/** Reports, once per server, the overrides that name a tool the server does not list. */
export function reportUnknownOverrides(
  reported: Set<string>,
  server: string,
  names: readonly string[],
  sinks: GatewayEventSinks,
): void {
  for (const name of names) {
    if (reported.has(`override:${name}`)) continue;
    reported.add(`override:${name}`);
    sinks.log(`${server}: toolpact.servers.${server}.tools names "${name}", which the server does not list.`);
  }
}

/**
 * Reports, once each, what a server's catalog plan does not serve as listed: withheld resources,
 * templates and prompts (with the way to accept them), resources another server keeps, and prompts
 * served under a prefixed name.
 *
 * @example
 * reportCatalog(entry.reported, plan.servers.get('everything'), log);
 */
export function reportCatalog(
  reported: Set<string>,
  plan: CatalogServerPlan,
  log: (line: string) => void,
): void {
  const once = (key: string, line: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    log(line);
  };
  for (const item of plan.withheld) {
    const what = `the ${SINGULAR[item.kind]} "${item.key}"`;
    once(
      `item:${item.kind}\u0000${item.key}\u0000${item.reason}\u0000${item.descriptionDiff ?? ''}`,
      item.reason === 'hidden-instructions'
        ? `${item.server}: ${what} has hidden instructions in its text and is withheld; toolpact gateway check shows the text, and toolpact gateway pin --accept ${catalogAcceptKey(item.server, item.kind, item.key)} accepts it.`
        : item.reason === 'new'
          ? `${item.server}: ${what} is new and withheld (newTools is "withhold"); accept it with toolpact gateway pin.`
          : `${item.server}: the text of ${what} changed since it was pinned, so it is withheld. Review the change and accept it with toolpact gateway pin.\n  description:\n${indent(item.descriptionDiff ?? '')}`,
    );
  }
  for (const item of plan.shadowed) {
    once(
      `shadowed:${item.kind}\u0000${item.key}`,
      `${item.server}: its ${SINGULAR[item.kind]} "${item.key}" is not served: the server "${item.owner}", earlier in the config, offers the same one.`,
    );
  }
  for (const collision of plan.collisions) {
    once(
      `prompt-collision:${collision.remoteName}\u0000${collision.name}`,
      `${collision.server}: its prompt "${collision.remoteName}" is served as "${collision.name}": ${collision.owner ? `the prompt "${collision.owner.remoteName}" of the server "${collision.owner.server}" owns that name` : 'that name is taken'}. Prompt names are owned in the lock, as tool names are.`,
    );
  }
}

function audit(sinks: GatewayEventSinks, record: CallRecord): void {
  // An audit that commits elsewhere (a store) answers a promise: a failed write is not this event's to fail.
  const recorded = sinks.audit?.(record);
  if (recorded && typeof (recorded as PromiseLike<unknown>).then === 'function') {
    Promise.resolve(recorded).catch(() => {});
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
