import { html } from './html.js';

/**
 * The description as a reader sees it: paragraphs, `- ` lists and `code`, with each lint finding that
 * quotes the text marked where it points; the other description findings are listed under it.
 */
export function Description({ text, findings }) {
  const marks = findings.filter((finding) => finding.path === '$.description' && finding.excerpt);
  const unplaced = findings.filter((finding) => finding.path === '$.description' && !finding.excerpt);
  const blocks = text.split(/\n{2,}/);
  return html`<div class="description">
    ${blocks.map((block) => {
      const lines = block.split('\n');
      if (lines.every((line) => /^\s*[-*] /.test(line))) {
        return html`<ul>${lines.map((line) => html`<li>${inline(line.replace(/^\s*[-*] /, ''), marks)}</li>`)}</ul>`;
      }
      return html`<p>${inline(block, marks)}</p>`;
    })}
    ${
      unplaced.length > 0
        ? html`<ul class="description-findings">
            ${unplaced.map((finding) => html`<li class=${`severity-${finding.severity}`}><${RuleName} finding=${finding} /> ${finding.message}</li>`)}
          </ul>`
        : null
    }
  </div>`;
}

/** A finding's rule, as a short label. */
export function RuleName({ finding }) {
  return html`<code class="rule">${finding.rule}</code>`;
}

// Marks first (they may span code), then inline code in the unmarked parts.
function inline(text, marks) {
  const spans = [];
  for (const finding of marks) {
    const start = text.indexOf(finding.excerpt);
    if (start < 0) continue;
    const end = start + finding.excerpt.length;
    if (spans.some((span) => start < span.end && end > span.start)) continue;
    spans.push({ start, end, finding });
  }
  spans.sort((a, b) => a.start - b.start);
  const out = [];
  let at = 0;
  for (const span of spans) {
    out.push(...code(text.slice(at, span.start)));
    out.push(
      html`<mark class=${`finding severity-${span.finding.severity}`} title=${`${span.finding.rule}: ${span.finding.message}`}
        data-rule=${span.finding.rule}>${text.slice(span.start, span.end)}</mark>`,
    );
    at = span.end;
  }
  out.push(...code(text.slice(at)));
  return out;
}

function code(text) {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part) => (/^`[^`]+`$/.test(part) ? html`<code>${part.slice(1, -1)}</code>` : part));
}
