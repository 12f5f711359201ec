import type { OfferingRows } from '../registry/offering-rows.js';
import { counted } from '../util/counted.js';
import { renderTable } from './table.js';

/** The resources and prompts as two tables, or nothing when there are none. */
export function renderOfferings(rows: OfferingRows): string {
  const parts: string[] = [];
  if (rows.resources.length > 0) {
    parts.push(
      `${counted(rows.resources.length, 'resource')} (templates included):`,
      renderTable(
        ['uri', 'kind', 'name', 'mime type'],
        rows.resources.map((row) => [row.uri, row.kind, row.name, row.mimeType ?? '']),
      ).trimEnd(),
      '',
    );
  }
  if (rows.prompts.length > 0) {
    parts.push(
      `${counted(rows.prompts.length, 'prompt')}:`,
      renderTable(
        ['prompt', 'arguments'],
        rows.prompts.map((row) => [row.name, row.arguments.join(', ') || '(none)']),
      ).trimEnd(),
      '',
    );
  }
  return parts.join('\n');
}
