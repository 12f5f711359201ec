import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { Badges, Effects } from './badges.js';
import { Description } from './description.js';
import { html } from './html.js';
import { Playground } from './playground.js';
import { Providers } from './providers.js';
import { SchemaTree } from './schema-tree.js';

/** A tool's page: description, parameters, providers' payloads, the return contract, the playground. */
export function ToolPage({ name, version, history }) {
  const [detail, setDetail] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let current = true;
    setError(null);
    getJson(`./api/tools/${encodeURIComponent(name)}`)
      .then((data) => current && setDetail(data))
      .catch((failure) => current && setError(failure.message));
    return () => {
      current = false;
    };
  }, [name, version]);

  if (error) return html`<section class="tool-page"><p class="error">${error}</p></section>`;
  if (!detail || detail.contract.name !== name)
    return html`<section class="tool-page"><p class="muted">Loading ${name}…</p></section>`;
  const { row, contract } = detail;
  const parameterFindings = row.findings.filter((finding) => finding.path.startsWith('$.parameters'));
  const otherFindings = row.findings.filter(
    (finding) => finding.path !== '$.description' && !finding.path.startsWith('$.parameters'),
  );
  return html`<section class="tool-page" data-tool=${name}>
    <header class="tool-head">
      <h2>${contract.name}</h2>
      ${contract.title ? html`<span class="tool-title">${contract.title}</span>` : null}
      <${Badges} tool=${row} />
      <${Effects} effects=${row.effects} />
      <span class="muted">source: ${row.source}</span>
      ${row.permission.rule ? html`<span class="muted permission-rule">gate: ${row.permission.rule}${row.permission.reason ? ` — ${row.permission.reason}` : ''}</span>` : null}
    </header>
    <section>
      <h3>Description</h3>
      <${Description} text=${contract.description} findings=${row.findings} />
      ${
        otherFindings.length > 0
          ? html`<ul class="other-findings">
              ${otherFindings.map((finding) => html`<li class=${`severity-${finding.severity}`}><code class="rule">${finding.rule}</code> <code class="path">${finding.path}</code> ${finding.message}</li>`)}
            </ul>`
          : null
      }
    </section>
    <div class="two-columns">
      <section>
        <h3>Parameters</h3>
        <${SchemaTree} schema=${contract.parameters} findings=${parameterFindings} />
      </section>
      <section class="returns">
        <h3>Returns</h3>
        ${
          contract.returns
            ? html`${contract.returns.description ? html`<p>${contract.returns.description}</p>` : null}
              ${contract.returns.schema ? html`<${SchemaTree} schema=${contract.returns.schema} path="$.returns.schema" />` : null}`
            : html`<p class="muted">No return contract: the model learns the result's shape from the description alone.</p>`
        }
      </section>
    </div>
    <${Playground} key=${name} contract=${contract} history=${history.filter((call) => call.tool === name)} />
    <${Providers} detail=${detail} />
  </section>`;
}
