import { html } from './html.js';

/** The category, risk and permission badges, and the effects, of one tool row. */
export function Badges({ tool }) {
  const permission = tool.permission;
  const title = [permission.rule, permission.reason].filter(Boolean).join(': ');
  return html`<span class="badges">
    <span class=${`badge category category-${tool.category}`} title="category">${tool.category}</span>
    <span class=${`badge risk risk-${tool.risk}`} title="risk">${tool.risk} risk</span>
    <span class=${`badge permission permission-${permission.action}`} title=${title}>${permission.action}</span>
  </span>`;
}

const EFFECTS = [
  ['readOnly', 'read-only', 'writes'],
  ['destructive', 'destructive', null],
  ['idempotent', 'idempotent', null],
  ['openWorld', 'open world', null],
];

/** The effects a tool declares, as small chips. */
export function Effects({ effects }) {
  const chips = [];
  for (const [key, yes, no] of EFFECTS) {
    if (effects[key]) chips.push(yes);
    else if (no) chips.push(no);
  }
  return html`<span class="effects">${chips.map((chip) => html`<span class="effect">${chip}</span>`)}</span>`;
}

/** The count of findings by severity, or nothing. */
export function FindingCount({ findings }) {
  if (findings.length === 0) return html`<span class="finding-count none">no findings</span>`;
  const errors = findings.filter((finding) => finding.severity === 'error').length;
  const others = findings.length - errors;
  return html`<span class="finding-count">
    ${errors > 0 ? html`<span class="severity-error">${errors} error${errors > 1 ? 's' : ''}</span>` : null}
    ${others > 0 ? html`<span class="severity-warning">${others} finding${others > 1 ? 's' : ''}</span>` : null}
  </span>`;
}
