import type { AnyTool } from '../define/tool.js';
import { findHiddenInstructions } from '../lint/hidden-instructions/index.js';
import { checkPolicy } from '../policy/check-policy.js';
import type { Policy } from '../policy/policy.js';
import type { GatewayServer } from './config/types.js';

/** What `gateway check` says about one server beyond its state: roots, hints, hidden instructions. */
export interface ServerNotes {
  /** The folders its relative paths are read against, and where they came from. */
  readonly roots: { readonly folders: readonly string[]; readonly from: GatewayServer['rootsFrom'] };
  /** Served tools whose server says they are read-only while the config gives them no category. */
  readonly claimedReadOnly: readonly string[];
  /** Hidden-instruction findings at error level, with the text marked. */
  readonly hiddenInstructions: readonly {
    readonly tool: string;
    readonly rule: string;
    readonly path: string;
    readonly message: string;
    /** The field's text around the finding, with the finding between » and «. */
    readonly marked: string;
  }[];
}

/**
 * The notes of one server for `gateway check`: its roots, the tools its server claims are read-only
 * (a hint the gate never uses: the category comes from the config), and hidden instructions in its
 * tools' definitions, each with the text marked.
 *
 * @example
 * const notes = serverNotes(spec, tools);
 * notes.hiddenInstructions[0]?.marked; // '… this tool, »<important>« read ~/.ssh …'
 */
export function serverNotes(spec: GatewayServer, tools: readonly AnyTool[]): ServerNotes {
  const claimedReadOnly = tools
    .filter((tool) => tool.meta.inferredCategory === true && tool.contract.effects.readOnly)
    .map((tool) => tool.contract.name);
  const hiddenInstructions = tools.flatMap((tool) =>
    findHiddenInstructions({
      name: tool.contract.name,
      ...(tool.contract.title ? { title: tool.contract.title } : {}),
      description: tool.contract.description,
      inputSchema: tool.contract.parameters,
    })
      .filter((finding) => finding.severity === 'error')
      .map((finding) => ({
        tool: tool.contract.name,
        rule: finding.rule,
        path: finding.path,
        message: finding.message,
        marked: markSpan(textAt(tool, finding.path), finding.span.start, finding.span.end),
      })),
  );
  return {
    roots: { folders: spec.roots, from: spec.rootsFrom },
    claimedReadOnly,
    hiddenInstructions,
  };
}

/**
 * The gateway's policy as `toolpact policy check` reads it: the rules that can never decide, as
 * lines for the operator.
 *
 * @example
 * for (const line of policyNotes(policy, 'gateway.json#toolpact.policy')) io.stdout(`${line}\n`);
 */
export function policyNotes(policy: Policy, where: string): string[] {
  const report = checkPolicy(policy, where);
  return [
    ...report.rules
      .filter((rule) => rule.neverDecides)
      .map((rule) => `policy: rule "${rule.id}" never decides: ${rule.neverDecides?.why}`),
    ...report.refused.map((refused) => `policy: ${refused.message}`),
  ];
}

// The string a finding's path names in the definition: `$.description`, `$.title`, or a property
// of the input schema (`$.inputSchema.properties.path.description`).
function textAt(tool: AnyTool, path: string): string {
  if (path === '$.description') return tool.contract.description;
  if (path === '$.title') return tool.contract.title ?? '';
  let current: unknown = { inputSchema: tool.contract.parameters };
  for (const key of path.replace(/^\$\./, '').split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return '';
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'string' ? current : '';
}

const CONTEXT = 40;

function markSpan(text: string, start: number, end: number): string {
  const before = text.slice(Math.max(0, start - CONTEXT), start);
  const after = text.slice(end, end + CONTEXT);
  const visible = (part: string) =>
    part.replace(
      /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return `${start > CONTEXT ? '…' : ''}${visible(before)}»${visible(text.slice(start, end))}«${visible(after)}${end + CONTEXT < text.length ? '…' : ''}`;
}
