import { useEffect, useMemo, useState } from 'preact/hooks';
import { FORMAT_SHORT, getJson } from './api.js';
import { Badges, Effects, FindingCount } from './badges.js';
import { html } from './html.js';

const CATEGORIES = ['read', 'search', 'write', 'execute', 'delegate'];

/** The tool list with its filters: text (the search index when there is one), category and finding. */
export function ToolList({ overview, selected, onSelect }) {
  const [text, setText] = useState('');
  const [category, setCategory] = useState('');
  const [finding, setFinding] = useState('');
  const [matches, setMatches] = useState(null);

  useEffect(() => {
    if (text.trim() === '') {
      setMatches(null);
      return undefined;
    }
    let current = true;
    const timer = setTimeout(() => {
      getJson(`./api/search?q=${encodeURIComponent(text)}`)
        .then((result) => current && setMatches(result.names))
        .catch(() => current && setMatches([]));
    }, 120);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, overview.version]);

  const rules = useMemo(
    () => [...new Set(overview.tools.flatMap((tool) => tool.findings.map((entry) => entry.rule)))].sort(),
    [overview],
  );
  const shown = useMemo(() => {
    const byName = new Map(overview.tools.map((tool) => [tool.name, tool]));
    const ordered = matches ? matches.map((name) => byName.get(name)).filter(Boolean) : overview.tools;
    return ordered.filter(
      (tool) =>
        (category === '' || tool.category === category) &&
        (finding === '' ||
          (finding === '*' && tool.findings.length > 0) ||
          (finding === '-' && tool.findings.length === 0) ||
          tool.findings.some((entry) => entry.rule === finding)),
    );
  }, [overview, matches, category, finding]);

  useEffect(() => {
    if (overview.tools.length > 0 && !document.body.dataset.listRendered) {
      document.body.dataset.listRendered = 'true';
      performance.mark('toolpact:list-rendered');
    }
  }, [overview]);

  return html`<nav class="tool-list" aria-label="Tools">
    <div class="filters">
      <input type="search" class="filter-text" placeholder=${overview.searchIndex ? 'Search tools (index)…' : 'Filter by text…'}
        value=${text} onInput=${(event) => setText(event.currentTarget.value)} aria-label="Filter by text" />
      <select class="filter-category" value=${category} onChange=${(event) => setCategory(event.currentTarget.value)}
        aria-label="Filter by category">
        <option value="">all categories</option>
        ${CATEGORIES.map((name) => html`<option value=${name}>${name}</option>`)}
      </select>
      <select class="filter-finding" value=${finding} onChange=${(event) => setFinding(event.currentTarget.value)}
        aria-label="Filter by finding">
        <option value="">any findings</option>
        <option value="*">with findings</option>
        <option value="-">without findings</option>
        ${rules.map((rule) => html`<option value=${rule}>${rule}</option>`)}
      </select>
    </div>
    <p class="list-count">${shown.length} of ${overview.tools.length} tools</p>
    <ul>
      ${shown.map(
        (
          tool,
        ) => html`<li key=${tool.name} data-tool=${tool.name} class=${tool.name === selected ? 'selected' : ''}>
          <button type="button" onClick=${() => onSelect(tool.name)}>
            <span class="tool-name">${tool.name}</span>
            ${tool.title ? html`<span class="tool-title">${tool.title}</span>` : null}
            <${Badges} tool=${tool} />
            <${Effects} effects=${tool.effects} />
            <span class="row-foot">
              <${FindingCount} findings=${tool.findings} />
              <span class="row-tokens" title="tokens per provider">
                ${overview.formats.map(
                  (format) =>
                    html`<span data-format=${format}>${FORMAT_SHORT[format]} ${tool.tokens[format]}</span>`,
                )}
              </span>
            </span>
          </button>
        </li>`,
      )}
    </ul>
  </nav>`;
}
