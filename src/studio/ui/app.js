import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { followEvents, getJson, postJson } from './api.js';
import { ApprovalDialog } from './approval-dialog.js';
import { AuditView } from './audit-view.js';
import { html } from './html.js';
import { QueueView } from './queue-view.js';
import { SetView } from './set-view.js';
import { ToolList } from './tool-list.js';
import { ToolPage } from './tool-page.js';

// The view lives in the hash: #tool/<name>, #set, #audit or #approvals.
function readRoute() {
  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash.startsWith('tool/')) return { view: 'tool', tool: hash.slice(5) };
  if (hash === 'set' || hash === 'audit' || hash === 'approvals') return { view: hash, tool: null };
  return { view: 'tool', tool: null };
}

function App() {
  const [overview, setOverview] = useState(null);
  const [problem, setProblem] = useState(null);
  const [route, setRoute] = useState(readRoute);
  const [approvals, setApprovals] = useState([]);
  // The store's approval queue, pushed by the server while the page is open (only with a store).
  const [queue, setQueue] = useState(null);
  const [audit, setAudit] = useState([]);
  const [history, setHistory] = useState([]);
  const [live, setLive] = useState(false);
  const [reloadedAt, setReloadedAt] = useState(null);

  useEffect(() => {
    const onHash = () => setRoute(readRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    // The first state event only says which version is current; later ones mean a reload.
    let seen = null;
    let loaded = null;
    const refresh = () =>
      getJson('./api/overview')
        .then((data) => {
          loaded = data.version;
          setOverview(data);
          setProblem(null);
        })
        .catch((error) => setProblem(error.message));
    refresh();
    getJson('./api/audit').then(setAudit, () => {});
    getJson('./api/history').then(setHistory, () => {});
    return followEvents({
      state: (state) => {
        if (seen === null) {
          seen = state.version;
          if (loaded !== null && loaded !== state.version) refresh();
          return;
        }
        if (state.version === seen) return;
        seen = state.version;
        setReloadedAt(new Date());
        refresh();
      },
      approvals: setApprovals,
      queue: setQueue,
      audit: (entry) => setAudit((entries) => [...entries, entry]),
      call: (call) => setHistory((calls) => [...calls.filter((known) => known.id !== call.id), call]),
      connection: setLive,
    });
  }, []);

  if (!overview) {
    return html`<p class=${problem ? 'error' : 'loading'}>${problem ?? 'Loading the contracts…'}</p>`;
  }
  const selected =
    route.tool && overview.tools.some((tool) => tool.name === route.tool)
      ? route.tool
      : overview.tools[0]?.name;
  const go = (hash) => {
    location.hash = hash;
  };
  return html`<div class="studio">
    <header class="top">
      <h1>toolpact studio</h1>
      <span class="source-label" title=${overview.kind}>${overview.kind === 'mcp' ? 'MCP ' : ''}${overview.label}</span>
      <span class="counts">${overview.tools.length} tools · <span class="severity-error">${overview.errorCount} errors</span> · <span class="severity-warning">${overview.warningCount} warnings</span> · ${overview.policyRules > 0 ? `policy: ${overview.policyRules} rule${overview.policyRules === 1 ? '' : 's'}` : 'policy: category defaults'}</span>
      <nav class="tabs">
        <button type="button" class=${route.view === 'tool' ? 'on' : ''} onClick=${() => go(selected ? `tool/${selected}` : '')}>Tools</button>
        <button type="button" class=${route.view === 'set' ? 'on' : ''} onClick=${() => go('set')}>Set</button>
        <button type="button" class=${route.view === 'audit' ? 'on' : ''} onClick=${() => go('audit')}>Audit (${audit.length})</button>
        ${overview.store ? html`<button type="button" class=${`queue-tab ${route.view === 'approvals' ? 'on' : ''} ${queue?.pending.length ? 'waiting' : ''}`} onClick=${() => go('approvals')}>Approvals (${queue ? queue.pending.length : '…'})</button>` : null}
      </nav>
      ${overview.signedIn ? html`<${SignedIn} who=${overview.signedIn} />` : null}
      <span class=${`live ${live ? 'on' : 'off'}`} title="live reload">${live ? 'live' : 'offline'}</span>
      ${reloadedAt ? html`<span class="reloaded">reloaded ${reloadedAt.toLocaleTimeString('en-GB')}</span>` : null}
    </header>
    ${overview.loadError ? html`<p class="error load-error">The source failed to reload; showing the last tool set that loaded. ${overview.loadError}</p>` : null}
    ${overview.skipped.length > 0 ? html`<p class="warning">Not imported: ${overview.skipped.map((tool) => `${tool.remoteName} (${tool.message})`).join('; ')}</p>` : null}
    <main class=${`view-${route.view}`}>
      ${
        route.view === 'tool'
          ? html`<${ToolList} overview=${overview} selected=${selected} onSelect=${(name) => go(`tool/${name}`)} />
            ${selected ? html`<${ToolPage} name=${selected} version=${overview.version} history=${history} />` : html`<p class="muted">This source has no tools.</p>`}`
          : route.view === 'set'
            ? html`<${SetView} overview=${overview} onSelect=${(name) => go(`tool/${name}`)} />`
            : route.view === 'approvals' && overview.store
              ? html`<${QueueView} queue=${queue} signedIn=${overview.signedIn} />`
              : html`<${AuditView} audit=${audit} history=${history} />`
      }
    </main>
    ${approvals.length > 0 ? html`<${ApprovalDialog} key=${approvals[0].id} approval=${approvals[0]} />` : null}
  </div>`;
}

/** Who is signed in (with sign-in on), their groups, and the way out. */
function SignedIn({ who }) {
  const [problem, setProblem] = useState(null);
  const signOut = async () => {
    try {
      const { next } = await postJson('./auth/sign-out', {});
      location.assign(next);
    } catch (error) {
      setProblem(error.message);
    }
  };
  const groups = who.groups.length > 0 ? ` (${who.groups.join(', ')})` : '';
  return html`<span class="signed-in" title=${`${who.subject} at ${who.issuer ?? 'the issuer'}, until ${who.expiresAt}`}>
    signed in as <strong class="signed-in-name">${who.name}</strong>${groups}
    <button type="button" class="sign-out" onClick=${signOut}>Sign out</button>
    ${problem ? html`<span class="error">${problem}</span>` : null}
  </span>`;
}

render(html`<${App} />`, document.getElementById('app'));
