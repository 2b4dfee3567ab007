/** Plain-text tables and number formatting for benchmark output. */

export type Cell = string | number | undefined;

/** Renders rows under headers; numbers and figures are right-aligned, text left-aligned. */
export function table(headers: string[], rows: Cell[][]): string {
  const text = rows.map((row) => headers.map((_, index) => cellText(row[index])));
  const widths = headers.map((header, index) => Math.max(header.length, ...text.map((row) => row[index]!.length)));
  const numeric = headers.map((_, index) => text.every((row) => row[index] === '' || row[index] === '-' || /^[-+<>≈~]?[\d.,]+/.test(row[index]!)));
  const line = (cells: string[]) =>
    cells.map((cell, index) => (numeric[index] && index > 0 ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join(' | ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  return [line(headers), rule, ...text.map(line)].join('\n');
}

function cellText(cell: Cell): string {
  if (cell === undefined) return '-';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '-';
  return cell;
}

/** Milliseconds with sensible precision. */
export function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

export function fixed(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  return value.toFixed(digits);
}

export function percent(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  return `${(value * 100).toFixed(digits)}%`;
}

/** The value at `fraction` (0.5 = median, 0.99 = p99) of unsorted samples; NaN for none. */
export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** A header line for one benchmark. */
export function banner(title: string): string {
  const rule = '='.repeat(Math.max(60, title.length + 4));
  return `\n${rule}\n  ${title}\n${rule}`;
}

export function heading(title: string): string {
  return `\n-- ${title} ${'-'.repeat(Math.max(3, 56 - title.length))}`;
}
