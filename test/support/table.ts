// Parses kubectl's human-readable table output (`kubectl get`, `auth can-i --list`, `api-resources`).
// kubectl left-aligns every column with a tabwriter, so each cell starts where its header starts;
// slicing by the header's column positions keeps empty cells and cells containing spaces intact.

export interface ParsedTable {
  header: string[];
  rows: string[][];
  /** Rows as objects keyed by header name. */
  records: Record<string, string>[];
}

export function parseTable(text: string): ParsedTable {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (lines.length === 0) return { header: [], rows: [], records: [] };
  const headerLine = lines[0]!;
  const starts: number[] = [];
  const re = /\S+(?: \S+)*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(headerLine)) !== null) starts.push(m.index);
  const header = starts.map((s, i) => headerLine.slice(s, starts[i + 1] ?? headerLine.length).trim());
  const rows = lines.slice(1).map((line) => starts.map((s, i) => line.slice(s, i + 1 < starts.length ? starts[i + 1] : line.length).trim()));
  const records = rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ""])));
  return { header, rows, records };
}

/** The record whose `column` equals `value`; throws with the whole table when there is none. */
export function rowWhere(table: ParsedTable, column: string, value: string): Record<string, string> {
  const found = table.records.find((r) => r[column] === value);
  if (!found) throw new Error(`no row with ${column}=${value} in table:\n${JSON.stringify(table.records, null, 1)}`);
  return found;
}

/** kubectl's AGE cells: `5s`, `2m3s`, `4h`, `3d`, `<invalid>` (clock skew). */
export const ageCell = /^(\d+[smhdy])+$/;
