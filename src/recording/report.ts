/**
 * A drift report for people: text for the terminal, and a self-contained HTML page
 * (inline style, no script, no other origin) to read in a browser.
 */
import type { Difference } from './compare.js';
import type { DriftReport, ExchangeResult } from './drift.js';

const short = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/**
 * A difference in words.
 * @example describeDifference({ path: '$.data.fillers', kind: 'type', recorded: 'number', voxsim: 'boolean' }) // 'type: recorded number, voxsim boolean'
 */
export function describeDifference(d: Difference): string {
  switch (d.kind) {
    case 'status':
      return `status: recorded ${String(d.recorded)}, voxsim ${String(d.voxsim)}`;
    case 'missing':
      return `missing in voxsim (recorded ${short(d.recorded)})`;
    case 'extra':
      return `only in voxsim (${short(d.voxsim)})`;
    case 'type':
      return `type: recorded ${String(d.recorded)}, voxsim ${String(d.voxsim)}`;
    case 'value':
      return `value: recorded ${short(d.recorded)}, voxsim ${short(d.voxsim)}`;
  }
}

/** One line saying what the report found. */
export function verdict(report: DriftReport): string {
  const exchanges = report.exchanges.length;
  const different = report.exchanges.filter((e) => e.outcome === 'different').length;
  const missing = report.exchanges.filter((e) => e.outcome === 'missing-prerequisite').length;
  const head =
    report.differences.length === 0
      ? `No drift: ${exchanges} exchanges answered alike`
      : `${report.differences.length} difference${report.differences.length === 1 ? '' : 's'} in ${different} of ${exchanges} exchanges`;
  return `${head}${missing > 0 ? `; ${missing} not replayed (missing prerequisites: seed them with --given)` : ''}.`;
}

/**
 * The text report: what was replayed, a table per operation, then each differing exchange
 * with its differences and each missing prerequisite.
 * @example console.log(formatDriftText(report))
 */
export function formatDriftText(report: DriftReport): string {
  const lines: string[] = [];
  const ignored = Object.entries(report.ignored.reasons).map(([why, n]) => `${n} ${why}`);
  lines.push(`drift of ${report.file} on the ${report.wire} wire: ${report.exchanges.length} exchanges replayed from ${report.start}${ignored.length > 0 ? `; ignored: ${ignored.join(', ')}` : ''}`);
  lines.push('');
  const header = ['operation', 'exchanges', 'same', 'different', 'missing prerequisites'];
  const rows = report.operations.map((o) => [o.operation, String(o.exchanges), String(o.same), String(o.different), String(o.missing_prerequisites)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(row(header), ...rows.map(row));
  const differing = report.exchanges.filter((e) => e.outcome === 'different');
  if (differing.length > 0) {
    lines.push('', 'Differences:');
    for (const e of differing) {
      lines.push(`  entry ${e.entry}  ${e.method} ${e.path}  (${e.operation})`);
      const width = Math.max(...e.differences.map((d) => d.path.length));
      for (const d of e.differences) lines.push(`    ${d.path.padEnd(width)}  ${describeDifference(d)}`);
    }
  }
  const missing = report.exchanges.filter((e) => e.outcome === 'missing-prerequisite');
  if (missing.length > 0) {
    lines.push('', 'Missing prerequisites (used but never created in the recording; not replayed):');
    for (const e of missing) lines.push(`  entry ${e.entry}  ${e.method} ${e.path}: ${e.missing.map((m) => `${m.kind} ${m.id} (${m.where})`).join(', ')}`);
  }
  lines.push('', verdict(report));
  return lines.join('\n');
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
:root { color-scheme: light; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --line: #d0d7de; --muted: #57606a; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 16px 24px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
main { padding: 0 24px 24px; max-width: 1200px; }
.meta { color: var(--muted); }
.verdict { font-weight: 600; margin-top: 8px; }
.verdict.ok { color: var(--ok); } .verdict.bad { color: var(--bad); }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 3px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.bad { color: var(--bad); font-weight: 600; } td.warn { color: var(--warn); font-weight: 600; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
details { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
summary { cursor: pointer; padding: 8px 12px; }
summary .status { color: var(--muted); margin-left: 8px; }
details table { border: 0; border-top: 1px solid var(--line); }
.kind { display: inline-block; min-width: 58px; padding: 0 6px; border-radius: 10px; font-size: 12px; text-align: center; background: #eaeef2; }
.kind.status, .kind.value { background: #ffebe9; color: var(--bad); }
.kind.type { background: #fff8c5; color: var(--warn); }
.kind.missing, .kind.extra { background: #ddf4ff; color: #0969da; }
`;

function exchangeBlock(e: ExchangeResult): string {
  const rows = e.differences
    .map((d) => {
      // A type difference names JSON types, shown as words; other cells show JSON values.
      const cell = (value: unknown, absent: boolean) => (absent ? '' : d.kind === 'type' || d.kind === 'status' ? String(value) : short(value));
      return `<tr><td><code>${escape(d.path)}</code></td><td><span class="kind ${d.kind}">${d.kind}</span></td><td><code>${escape(cell(d.recorded, d.kind === 'extra'))}</code></td><td><code>${escape(cell(d.voxsim, d.kind === 'missing'))}</code></td></tr>`;
    })
    .join('');
  return `<details open data-entry="${e.entry}"><summary><strong>entry ${e.entry}</strong> <code>${escape(`${e.method} ${e.path}`)}</code><span class="status">${escape(e.operation)} · recorded ${e.recorded_status}, voxsim ${e.voxsim_status ?? '-'} · ${e.differences.length} difference${e.differences.length === 1 ? '' : 's'}</span></summary><table><thead><tr><th>JSON path</th><th>kind</th><th>recorded</th><th>voxsim</th></tr></thead><tbody>${rows}</tbody></table></details>`;
}

/**
 * The HTML report: one page with its style inline and nothing to load.
 * @example writeFileSync('drift.html', formatDriftHtml(report))
 */
export function formatDriftHtml(report: DriftReport): string {
  const ok = report.differences.length === 0;
  const ignored = Object.entries(report.ignored.reasons).map(([why, n]) => `${n} ${why}`);
  const table = report.operations
    .map(
      (o) =>
        `<tr data-operation="${escape(o.operation)}"><td><code>${escape(o.operation)}</code></td><td class="n">${o.exchanges}</td><td class="n">${o.same}</td><td class="n${o.different > 0 ? ' bad' : ''}">${o.different}</td><td class="n${o.missing_prerequisites > 0 ? ' warn' : ''}">${o.missing_prerequisites}</td></tr>`,
    )
    .join('');
  const differing = report.exchanges.filter((e) => e.outcome === 'different');
  const missing = report.exchanges.filter((e) => e.outcome === 'missing-prerequisite');
  const missingRows = missing
    .map((e) => `<tr><td class="n">${e.entry}</td><td><code>${escape(`${e.method} ${e.path}`)}</code></td><td>${escape(e.missing.map((m) => `${m.kind} ${m.id} (${m.where})`).join(', '))}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>voxsim drift: ${escape(report.file)}</title><style>${STYLE}</style></head>
<body><header><h1>voxsim drift</h1>
<div class="meta"><code title="${escape(report.file)}">${escape(report.file.replace(/^.*[\\/]/, ''))}</code> replayed on the <strong>${report.wire}</strong> wire from ${escape(report.start)} · ${report.exchanges.length} exchanges of ${report.entries} entries${ignored.length > 0 ? ` · ignored: ${escape(ignored.join(', '))}` : ''}</div>
<div class="verdict ${ok ? 'ok' : 'bad'}" data-testid="verdict">${escape(verdict(report))}</div></header>
<main><h2>Operations</h2>
<table data-testid="operations"><thead><tr><th>operation</th><th class="n">exchanges</th><th class="n">same</th><th class="n">different</th><th class="n">missing prerequisites</th></tr></thead><tbody>${table}</tbody></table>
<h2>Differences</h2>${differing.length === 0 ? '<p>None.</p>' : differing.map(exchangeBlock).join('\n')}
${missing.length === 0 ? '' : `<h2>Missing prerequisites</h2><p class="meta">Used but never created in the recording, so not replayed: seed them with <code>--given SCENARIO</code>.</p><table><thead><tr><th class="n">entry</th><th>request</th><th>ids</th></tr></thead><tbody>${missingRows}</tbody></table>`}
</main></body></html>
`;
}
