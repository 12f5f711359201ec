import { useState } from 'preact/hooks';
import { FORMAT_TITLES } from './api.js';
import { html } from './html.js';

/** Each provider's exact payload side by side, with its diagnostics, tokens and a diff against canonical. */
export function Providers({ detail }) {
  const [mode, setMode] = useState('payload');
  return html`<section class="providers">
    <header class="section-head">
      <h3>What each provider receives</h3>
      <span class="muted">canonical contract: ${detail.canonicalTokens} tokens</span>
      <span class="toggle" role="group" aria-label="Show">
        <button type="button" class=${mode === 'payload' ? 'on' : ''} onClick=${() => setMode('payload')}>payload</button>
        <button type="button" class=${mode === 'diff' ? 'on' : ''} onClick=${() => setMode('diff')}>diff vs canonical</button>
      </span>
    </header>
    <div class="provider-grid">
      ${detail.payloads.map(
        (entry) => html`<article class="provider" data-format=${entry.format}>
          <h4>${FORMAT_TITLES[entry.format] ?? entry.format} <span class="tokens">${entry.tokens} tokens</span></h4>
          ${
            entry.diagnostics.length > 0
              ? html`<ul class="diagnostics">
                  ${entry.diagnostics.map(
                    (diagnostic) => html`<li class=${`severity-${diagnostic.severity}`}>
                      <code>${diagnostic.code}</code> <code class="path">${diagnostic.path}</code> ${diagnostic.message}
                    </li>`,
                  )}
                </ul>`
              : html`<p class="muted diagnostics-none">carried exactly</p>`
          }
          ${
            mode === 'payload'
              ? html`<pre class="payload">${JSON.stringify(entry.payload, null, 2)}</pre>`
              : html`<pre class="diff">${entry.diff.map((line) => html`<span class=${diffClass(line.op)}>${line.op} ${line.text}\n</span>`)}</pre>`
          }
        </article>`,
      )}
    </div>
  </section>`;
}

function diffClass(op) {
  if (op === '+') return 'diff-added';
  if (op === '-') return 'diff-removed';
  return 'diff-same';
}
