/**
 * The fault matrix printed as a table (role × fault × state × how the session stood → outcome, final
 * owner, generation, entries kept, time to settle, whether every check held) and the settle times
 * per kind of fault.
 */
import { isLinkFault } from './cases.ts';
import type { CaseRow } from './run-case.ts';

const HEADINGS = ['role', 'fault', 'state', 'session', 'outcome', 'owner', 'gen', 'entries kept', 'settle', 'checks'];

function cells(row: CaseRow): string[] {
  const { party, fault, state, start } = row.case;
  return [
    fault === 'cut' || isLinkFault(fault) ? `network (${party})` : party,
    fault,
    state,
    start === 'idle' ? 'idle' : 'turn running',
    row.outcome,
    row.owner ?? '-',
    row.generation === null ? '-' : String(row.generation),
    row.of === 0 ? '-' : `${row.kept}/${row.of}`,
    row.settleMs === null ? '-' : `${(row.settleMs / 1000).toFixed(1)} s`,
    row.violations.length === 0 ? 'held' : `FAILED: ${row.violations.join('; ')}`,
  ];
}

/** The rows as an aligned text table, under a line saying how the network was cut. */
export function formatMatrix(rows: readonly CaseRow[], linkDescription: string): string {
  const table = [HEADINGS, ...rows.map(cells)];
  // The last column (the checks, with any violation in words) is left ragged.
  const widths = HEADINGS.map((heading, i) => (i === HEADINGS.length - 1 ? heading.length : Math.max(...table.map((r) => r[i]!.length))));
  const line = (r: string[]) => `| ${r.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  const held = rows.filter((r) => r.violations.length === 0).length;
  return [
    `Fault matrix: ${rows.length} cases, ${held} held, ${rows.length - held} failed. Network cuts: ${linkDescription}.`,
    line(table[0]!),
    rule,
    ...table.slice(1).map(line),
    '',
    ...settleSummary(rows),
  ].join('\n');
}

/** Median and longest settle time per role and fault, in seconds (after the fault; under a slow or lossy link, from its start). */
export function settleSummary(rows: readonly CaseRow[]): string[] {
  const groups = new Map<string, number[]>();
  for (const row of rows) {
    if (row.settleMs === null) continue;
    const key = `${row.case.fault} ${row.case.party}`;
    groups.set(key, [...(groups.get(key) ?? []), row.settleMs]);
  }
  return [...groups.entries()].map(([key, times]) => {
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    const when = key.startsWith('delay') || key.startsWith('loss') ? 'under' : 'after';
    return `settle ${when} ${key.padEnd(14)}: median ${(median / 1000).toFixed(1)} s, longest ${(sorted.at(-1)! / 1000).toFixed(1)} s (${times.length} cases)`;
  });
}
