import { useState } from 'preact/hooks';
import { postJson } from './api.js';
import { html } from './html.js';

/** The gate asks: allow this call once, for the session, or deny it with a reason the model reads. */
export function ApprovalDialog({ approval }) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState(null);
  const answer = async (choice) => {
    try {
      await postJson(`./api/approvals/${encodeURIComponent(approval.id)}`, choice);
    } catch (error) {
      setProblem(error.message);
    }
  };
  return html`<div class="overlay">
    <div class="approval" role="dialog" aria-modal="true" aria-labelledby="approval-title">
      <h2 id="approval-title">Allow <code>${approval.tool}</code>?</h2>
      <p><span class=${`badge risk risk-${approval.risk}`}>${approval.risk} risk</span>
        <span class=${`badge category category-${approval.category}`}>${approval.category}</span>
        <span class="muted">rule <code>${approval.rule}</code></span></p>
      <p class="approval-reason">${approval.reason}</p>
      <pre class="approval-arguments">${JSON.stringify(approval.arguments, null, 2)}</pre>
      <div class="approval-actions">
        <button type="button" class="allow-once" onClick=${() => answer({ action: 'allow', scope: 'once' })}>Allow once</button>
        <button type="button" class="allow-session" onClick=${() => answer({ action: 'allow', scope: 'session' })}>Allow for this session</button>
      </div>
      <div class="approval-deny">
        <input type="text" class="deny-reason" placeholder="Reason the model reads (optional)" value=${reason}
          onInput=${(event) => setReason(event.currentTarget.value)} aria-label="Reason for denying" />
        <button type="button" class="deny" onClick=${() => answer({ action: 'deny', reason })}>Deny</button>
      </div>
      ${problem ? html`<p class="error">${problem}</p>` : null}
    </div>
  </div>`;
}
