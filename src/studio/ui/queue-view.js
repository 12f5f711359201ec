import { useState } from 'preact/hooks';
import { postJson } from './api.js';
import { html } from './html.js';

const NAME_KEY = 'toolpact-studio-decider';

/** A time as the page shows it: the local date and time to the second. */
function when(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const two = (value) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

function argumentsText(value) {
  return value === null || value === undefined ? '' : JSON.stringify(value, null, 2);
}

/**
 * The shared store's approval queue, as the server pushes it: the pending approvals with Approve and
 * Deny, and the latest decided ones with who decided and when.
 */
export function QueueView({ queue, signedIn }) {
  const [name, setName] = useState(() => sessionStorage.getItem(NAME_KEY) ?? '');
  if (!queue) {
    return html`<section class="queue-view"><p class="loading">Reading the approval queue…</p></section>`;
  }
  // Signed in, the decision is the signed-in person's: the server records them, not a typed name.
  const by = signedIn ? undefined : name.trim() || queue.decider;
  const rename = (value) => {
    setName(value);
    sessionStorage.setItem(NAME_KEY, value);
  };
  return html`<section class="queue-view">
    <h2>Approvals</h2>
    <p class="queue-source">
      The approval queue of <code>${queue.store}</code>, shared by every replica, followed live.
      ${
        signedIn
          ? html`<span class="decider">Deciding as <strong class="decider-signed-in">${signedIn.name}</strong>, signed in${signedIn.groups.length > 0 ? ` (${signedIn.groups.join(', ')})` : ''}</span>`
          : html`<label class="decider">Deciding as <input type="text" class="decider-name" value=${name} placeholder=${queue.decider}
        onInput=${(event) => rename(event.currentTarget.value)} aria-label="Who decides" /></label>`
      }
    </p>
    ${queue.problem ? html`<p class="error queue-problem">${queue.problem}</p>` : null}
    <h3>Pending (${queue.pending.length})</h3>
    ${
      queue.pending.length === 0
        ? html`<p class="muted queue-empty">Nothing waits for a decision. A call whose rule says <code>"approver": "queue"</code> appears here, whichever replica queued it.</p>`
        : html`<table class="audit queue pending">
            <thead><tr><th>tool</th><th>arguments</th><th>principal</th><th>rule</th><th>reason</th><th>asked</th><th>expires</th><th>decision</th></tr></thead>
            <tbody>${queue.pending.map((approval) => html`<${PendingRow} key=${approval.id} approval=${approval} by=${by} />`)}</tbody>
          </table>`
    }
    <h3>Recently decided</h3>
    ${
      queue.decided.length === 0
        ? html`<p class="muted">No decisions yet.</p>`
        : html`<table class="audit queue decided">
            <thead><tr><th>tool</th><th>arguments</th><th>principal</th><th>status</th><th>by</th><th>decided</th><th>reason</th><th>ran</th></tr></thead>
            <tbody>${queue.decided.map((approval) => html`<${DecidedRow} key=${approval.id} approval=${approval} />`)}</tbody>
          </table>`
    }
  </section>`;
}

function DecidedRow({ approval }) {
  return html`<tr data-approval=${approval.id} data-status=${approval.status}>
    <td><code>${approval.tool}</code><div class="muted approval-id">${approval.id}</div></td>
    <td><pre class="queue-arguments">${argumentsText(approval.arguments)}</pre></td>
    <td>${approval.principal}</td>
    <td class=${`queue-status status-${approval.status}`}>${approval.status}</td>
    <td class="decided-by">${approval.decidedBy ?? ''}</td>
    <td>${when(approval.decidedAt)}</td>
    <td>${approval.decisionReason ?? ''}</td>
    <td>${when(approval.usedAt)}</td>
  </tr>`;
}

function PendingRow({ approval, by }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState(null);
  const decide = async (action) => {
    setBusy(true);
    setProblem(null);
    try {
      await postJson(`./api/queue/${encodeURIComponent(approval.id)}`, {
        action,
        ...(by ? { by } : {}),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
      });
    } catch (error) {
      setProblem(error.message);
      setBusy(false);
    }
  };
  return html`<tr data-approval=${approval.id} data-tool=${approval.tool}>
    <td><code>${approval.tool}</code><div class="muted approval-id">${approval.id}</div></td>
    <td><pre class="queue-arguments">${argumentsText(approval.arguments)}</pre></td>
    <td>${approval.principal}</td>
    <td>${approval.rule ?? ''}</td>
    <td>${approval.reason ?? ''}</td>
    <td>${when(approval.createdAt)}</td>
    <td>${when(approval.expiresAt)}</td>
    <td><div class="queue-decide">
      <button type="button" class="approve" disabled=${busy} onClick=${() => decide('approve')}>Approve</button>
      <input type="text" class="deny-reason" placeholder="Reason (optional)" value=${reason}
        onInput=${(event) => setReason(event.currentTarget.value)} aria-label="Reason for the decision" />
      <button type="button" class="deny" disabled=${busy} onClick=${() => decide('deny')}>Deny</button>
      ${problem ? html`<p class="error decision-problem">${problem}</p>` : null}
    </div></td>
  </tr>`;
}
