/**
 * Studio: the page's load time with 100 tools, measured in Chromium from navigation start to the tool
 * list rendered (the page's own `toolpact:list-rendered` mark), cold (the server computes lint, tokens
 * and permissions for the set on that request) and warm (the set view cached); and the bytes served
 * for one page load, assets and data apart, compressed as sent and decompressed. The 100 tools are the
 * first distinct functions of the BFCL corpus.
 */
import type { AnyTool } from '../src/index.js';
import { Registry } from '../src/index.js';
import { startStudio } from '../src/studio/index.js';
import { HAS_CHROMIUM, launchBrowser } from '../test/studio/support.js';
import { bfclTool, loadBfcl } from '../test/support/bfcl.js';

const TOOLS = 100;
const ROUNDS = 7;

interface PageLoad {
  readonly listMs: number;
  /** When the last script and the overview data had arrived, ms from navigation start. */
  readonly scriptsMs: number;
  readonly overviewMs: number;
  readonly resources: readonly { name: string; transfer: number; encoded: number; decoded: number }[];
}

// Runs in the page (written as text: this file is compiled without the DOM's types).
const MEASURE_IN_PAGE = `(() => {
  const mark = performance.getEntriesByName('toolpact:list-rendered')[0];
  const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  return {
    listMs: mark.startTime,
    scriptsMs: Math.max(...entries.filter((entry) => /[/](ui|vendor)[/]/.test(entry.name)).map((entry) => entry.responseEnd)),
    overviewMs: entries.find((entry) => entry.name.endsWith('/api/overview')).responseEnd,
    rows: document.querySelectorAll('.tool-list li').length,
    resources: entries
      .filter((entry) => !entry.name.includes('/api/events'))
      .map((entry) => ({
        name: new URL(entry.name).pathname.split('/').slice(2).join('/') || '(page)',
        transfer: entry.transferSize,
        encoded: entry.encodedBodySize,
        decoded: entry.decodedBodySize,
      })),
  };
})()`;

export default async function run(): Promise<void> {
  if (!HAS_CHROMIUM) {
    process.stdout.write('skipped: no Chromium at /usr/bin/chromium (apt-get install chromium)\n');
    return;
  }
  const seen = new Set<string>();
  const tools: AnyTool[] = [];
  for (const entry of loadBfcl()) {
    for (const fn of entry.functions) {
      if (tools.length < TOOLS && !seen.has(fn.name)) {
        seen.add(fn.name);
        tools.push(bfclTool(fn));
      }
    }
  }
  const studio = await startStudio({
    label: `${tools.length} BFCL tools`,
    load: (options) => ({ registry: new Registry(options).register(tools) }),
  });
  const { context, close } = await launchBrowser();
  const load = async (): Promise<PageLoad> => {
    const page = await context.newPage();
    await page.goto(studio.url);
    await page.waitForSelector('body[data-list-rendered]');
    // Let the first tool's page (fetched after the list) finish, so its bytes are counted.
    await page.waitForSelector('.tool-page .providers');
    const figures = (await page.evaluate(MEASURE_IN_PAGE)) as PageLoad & { rows: number };
    await page.close();
    if (figures.rows !== tools.length) throw new Error(`The list showed ${figures.rows} rows.`);
    return figures;
  };
  try {
    await load(); // warms Chromium's own start-up, not measured
    const cold: number[] = [];
    const warm: number[] = [];
    const coldData: number[] = [];
    const warmData: number[] = [];
    const scripts: number[] = [];
    let last: PageLoad | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      await studio.reload(); // drops the cached set view: the next request computes it again
      const first = await load();
      cold.push(first.listMs);
      coldData.push(first.overviewMs);
      last = await load();
      warm.push(last.listMs);
      warmData.push(last.overviewMs);
      scripts.push(last.scriptsMs);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
    process.stdout.write(
      `${tools.length} tools, navigation start to list rendered, median of ${ROUNDS} (range), ms:\n` +
        `  cold (set view computed on the request)  ${median(cold).toFixed(0).padStart(5)}  (${range(cold)})\n` +
        `  warm (set view cached)                   ${median(warm).toFixed(0).padStart(5)}  (${range(warm)})\n` +
        `  of which: last script arrived            ${median(scripts).toFixed(0).padStart(5)}  (${range(scripts)})\n` +
        `            set view data arrived, cold    ${median(coldData).toFixed(0).padStart(5)}  (${range(coldData)})\n` +
        `            set view data arrived, warm    ${median(warmData).toFixed(0).padStart(5)}  (${range(warmData)})\n`,
    );
    const resources = last!.resources;
    const isData = (name: string) => name.startsWith('api/');
    const sum = (filter: (name: string) => boolean, key: 'transfer' | 'encoded' | 'decoded') =>
      resources.filter((entry) => filter(entry.name)).reduce((total, entry) => total + entry[key], 0);
    process.stdout.write('bytes for one page load (body as sent gzip / decompressed):\n');
    for (const entry of resources) {
      process.stdout.write(
        `  ${entry.name.padEnd(32)} ${String(entry.encoded).padStart(8)} / ${String(entry.decoded).padStart(8)}\n`,
      );
    }
    const assets = (name: string) => !isData(name);
    process.stdout.write(
      `  ${'assets (page, scripts, styles)'.padEnd(32)} ${String(sum(assets, 'encoded')).padStart(8)} / ${String(sum(assets, 'decoded')).padStart(8)}\n` +
        `  ${'data (overview, first tool)'.padEnd(32)} ${String(sum(isData, 'encoded')).padStart(8)} / ${String(sum(isData, 'decoded')).padStart(8)}\n` +
        `  ${'total on the wire (with headers)'.padEnd(32)} ${String(sum(() => true, 'transfer')).padStart(8)}\n`,
    );
  } finally {
    await close();
    await studio.close();
  }
}
