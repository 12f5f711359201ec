import { useState } from 'preact/hooks';
import { postJson } from './api.js';
import { html } from './html.js';
import { initialValue, SchemaForm } from './schema-form.js';

/** The call playground: a form from the schema or the raw text a model would send, and the envelope back. */
export function Playground({ contract, history }) {
  const [mode, setMode] = useState('form');
  const [value, setValue] = useState(() => initialValue(contract.parameters) ?? {});
  const [raw, setRaw] = useState(() => JSON.stringify(initialValue(contract.parameters) ?? {}, null, 2));
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState(null);
  const [failure, setFailure] = useState(null);
  const [pretty, setPretty] = useState(false);

  const send = async () => {
    setPending(true);
    setFailure(null);
    try {
      const body = mode === 'form' ? { tool: contract.name, arguments: value } : { tool: contract.name, raw };
      setResult(await postJson('./api/call', body));
    } catch (error) {
      setFailure(error.message);
    } finally {
      setPending(false);
    }
  };
  const showRaw = () => {
    setRaw(JSON.stringify(value, null, 2));
    setMode('raw');
  };

  return html`<section class="playground">
    <header class="section-head">
      <h3>Try a call</h3>
      <span class="toggle" role="group" aria-label="Arguments as">
        <button type="button" class=${mode === 'form' ? 'on' : ''} onClick=${() => setMode('form')}>form</button>
        <button type="button" class=${mode === 'raw' ? 'on' : ''} onClick=${showRaw}>raw JSON</button>
      </span>
    </header>
    <div class="playground-body">
      <form class="call-form" onSubmit=${(event) => {
        event.preventDefault();
        send();
      }}>
        ${
          mode === 'form'
            ? html`<${SchemaForm} schema=${contract.parameters} value=${value} onChange=${setValue} />`
            : html`<textarea class="raw-arguments" rows="8" spellcheck="false" aria-label="Raw arguments" value=${raw}
                onInput=${(event) => setRaw(event.currentTarget.value)}></textarea>
              <p class="muted">Sent exactly as typed, as a model's arguments string: broken JSON included.</p>`
        }
        <button type="submit" class="call-button" disabled=${pending}>${pending ? 'Waiting…' : `Call ${contract.name}`}</button>
      </form>
      <div class="envelope-panel">
        ${failure ? html`<p class="error">${failure}</p>` : null}
        ${
          result
            ? html`<div class=${`envelope ${result.ok ? 'ok' : 'failed'}`}>
                <header>
                  <span class=${`badge ${result.ok ? 'permission-allow' : 'permission-deny'}`}>${result.ok ? 'ok' : envelopeType(result.text)}</span>
                  <span class="tokens envelope-tokens">${result.tokens} tokens</span>
                  <span class="muted">${result.durationMs} ms</span>
                  <label class="muted"><input type="checkbox" checked=${pretty} onChange=${(event) => setPretty(event.currentTarget.checked)} /> indent</label>
                </header>
                <pre class="envelope-text">${pretty ? JSON.stringify(JSON.parse(result.text), null, 2) : result.text}</pre>
              </div>`
            : html`<p class="muted">The envelope appears here exactly as the model reads it.</p>`
        }
      </div>
    </div>
    ${history.length > 0 ? html`<${History} calls=${history} />` : null}
  </section>`;
}

/** Calls made from the page, newest first. */
export function History({ calls }) {
  return html`<details class="history" open>
    <summary>History (${calls.length})</summary>
    <table>
      <thead><tr><th>time</th><th>tool</th><th>sent</th><th>envelope</th><th>tokens</th></tr></thead>
      <tbody>
        ${[...calls].reverse().map(
          (call) => html`<tr key=${call.id} class=${call.ok ? 'ok' : 'failed'}>
            <td>${call.time.slice(11, 19)}</td><td>${call.tool}</td>
            <td><code>${clip(call.sent)}</code></td><td><code>${clip(call.text)}</code></td><td>${call.tokens}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </details>`;
}

function envelopeType(text) {
  try {
    return JSON.parse(text).error?.type ?? 'failed';
  } catch {
    return 'failed';
  }
}

function clip(text) {
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
