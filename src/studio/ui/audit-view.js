import { html } from './html.js';
import { History } from './playground.js';

/** The audit log as it grows (one entry per call, arguments redacted), and every call made from the page. */
export function AuditView({ audit, history }) {
  return html`<section class="audit-view">
    <h2>Audit log</h2>
    ${
      audit.length === 0
        ? html`<p class="muted">No calls yet. Every call made from the page is logged here, with the gate's decision.</p>`
        : html`<table class="audit">
            <thead><tr><th>time</th><th>tool</th><th>category</th><th>decision</th><th>rule</th><th>approval</th><th>outcome</th><th>ms</th><th>arguments</th></tr></thead>
            <tbody>
              ${[...audit].reverse().map(
                (entry, index) => html`<tr key=${index} data-tool=${entry.tool} data-outcome=${entry.outcome}>
                  <td>${entry.time.slice(11, 19)}</td>
                  <td>${entry.tool}</td>
                  <td>${entry.category ?? ''}</td>
                  <td class=${entry.decision ? `permission-${entry.decision.action}` : ''}>${entry.decision?.action ?? '—'}</td>
                  <td>${entry.decision?.rule ?? ''}</td>
                  <td class="audit-approval">${entry.decision?.approval ?? ''}${entry.decision?.approval === 'declined' && entry.decision.reason ? `: ${entry.decision.reason}` : ''}${entry.answeredBy ? ` by ${entry.answeredBy}` : ''}</td>
                  <td class=${entry.outcome === 'ok' ? 'outcome-ok' : 'outcome-failed'}>${entry.outcome}</td>
                  <td>${entry.durationMs}</td>
                  <td><code>${entry.arguments === undefined ? '' : JSON.stringify(entry.arguments).slice(0, 120)}</code></td>
                </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${history.length > 0 ? html`<${History} calls=${history} />` : null}
  </section>`;
}
