import { useState } from 'preact/hooks';
import { FORMAT_TITLES } from './api.js';
import { html } from './html.js';

const HEAVIEST = 12;

/** The gate's decision for an offering, as the tools' badge shows it. */
function Permission({ permission }) {
  const title = [permission.rule, permission.reason].filter(Boolean).join(': ');
  return html`<span class=${`badge permission permission-${permission.action}`} title=${title}>${permission.action}</span>`;
}

/** The resources and templates, and the prompts, of the set, each with the gate's decision; nothing when there are none. */
function Offerings({ resources, prompts }) {
  if (resources.length === 0 && prompts.length === 0) return null;
  return html`<section class="offerings">
    ${
      resources.length > 0
        ? html`<h3>Resources (${resources.length})</h3>
            <table class="offerings resources">
              <thead><tr><th>URI</th><th>kind</th><th>name</th><th>MIME type</th><th>read</th><th>description</th></tr></thead>
              <tbody>
                ${resources.map(
                  (row) => html`<tr key=${row.uri}>
                    <td><code>${row.uri}</code></td>
                    <td>${row.kind}</td>
                    <td>${row.name}</td>
                    <td>${row.mimeType ?? ''}</td>
                    <td><${Permission} permission=${row.permission} /></td>
                    <td>${row.description}</td>
                  </tr>`,
                )}
              </tbody>
            </table>`
        : null
    }
    ${
      prompts.length > 0
        ? html`<h3>Prompts (${prompts.length})</h3>
            <table class="offerings prompts">
              <thead><tr><th>prompt</th><th>arguments</th><th>get</th><th>description</th></tr></thead>
              <tbody>
                ${prompts.map(
                  (row) => html`<tr key=${row.name}>
                    <td><code>${row.name}</code></td>
                    <td>${row.arguments.join(', ') || '(none)'}</td>
                    <td><${Permission} permission=${row.permission} /></td>
                    <td>${row.description}</td>
                  </tr>`,
                )}
              </tbody>
            </table>`
        : null
    }
  </section>`;
}

/** The whole set: cross-tool findings, total tokens per provider, the heaviest tools as bars, and the resources and prompts. */
export function SetView({ overview, onSelect }) {
  const [format, setFormat] = useState(overview.formats[0]);
  const heaviest = [...overview.tools].sort((a, b) => b.tokens[format] - a.tokens[format]).slice(0, HEAVIEST);
  const most = Math.max(1, ...heaviest.map((tool) => tool.tokens[format]));
  return html`<section class="set-view">
    <h2>The whole set: ${overview.tools.length} tools</h2>
    <div class="totals">
      ${overview.formats.map(
        (name) => html`<div class="total" data-format=${name}>
          <span class="total-title">${FORMAT_TITLES[name] ?? name}</span>
          <span class="total-tokens">${overview.totals[name].toLocaleString('en')}</span>
          <span class="muted">tokens per request</span>
        </div>`,
      )}
    </div>
    <section>
      <header class="section-head">
        <h3>Heaviest tools</h3>
        <select value=${format} onChange=${(event) => setFormat(event.currentTarget.value)} aria-label="Provider">
          ${overview.formats.map((name) => html`<option value=${name}>${FORMAT_TITLES[name] ?? name}</option>`)}
        </select>
      </header>
      <ul class="bars">
        ${heaviest.map(
          (tool) => html`<li key=${tool.name}>
            <button type="button" class="bar-label" onClick=${() => onSelect(tool.name)}>${tool.name}</button>
            <span class="bar-track"><span class=${`bar category-${tool.category}`} style=${{ width: `${(100 * tool.tokens[format]) / most}%` }}></span></span>
            <span class="bar-value">${tool.tokens[format]}</span>
          </li>`,
        )}
      </ul>
    </section>
    <${Offerings} resources=${overview.resources ?? []} prompts=${overview.prompts ?? []} />
    <section>
      <h3>Findings across tools (${overview.setFindings.length})</h3>
      ${
        overview.setFindings.length === 0
          ? html`<p class="muted">None: names, parameters and descriptions agree across the set.</p>`
          : html`<ul class="set-findings">
              ${overview.setFindings.map(
                (finding) => html`<li class=${`severity-${finding.severity}`}>
                  <code class="rule">${finding.rule}</code> ${finding.message}
                  ${[finding.tool, ...finding.related]
                    .filter(Boolean)
                    .map(
                      (name) =>
                        html` <button type="button" class="tool-link" onClick=${() => onSelect(name)}>${name}</button>`,
                    )}
                </li>`,
              )}
            </ul>`
      }
    </section>
  </section>`;
}
