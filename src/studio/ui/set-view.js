import { useState } from 'preact/hooks';
import { FORMAT_TITLES } from './api.js';
import { html } from './html.js';

const HEAVIEST = 12;

/** The whole set: cross-tool findings, total tokens per provider, and the heaviest tools as bars. */
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
