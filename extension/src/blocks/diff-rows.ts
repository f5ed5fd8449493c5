// Lines of a diff as diff2html draws them, read back from its table rows: which side and line a
// row is, and the row of a side and line. Unified view: one table whose rows carry the old
// number, the new one, or both. Split view: the old side's table, then the new side's.
import type { DiffSide } from "@loopback/shared/generated/types";

export interface RowLine {
  side: DiffSide;
  line: number;
}

/** A row put in beneath a line, for what a layer shows there. */
export const BELOW_ROW = "lb-below-row";
/** The class of what a split diff shows beside a line, on its other side. */
export const BELOW_ASIDE = "lb-below-aside";
const number = (el: Element | null | undefined) => {
  const n = Number(el?.textContent?.trim());
  return Number.isInteger(n) && n > 0 ? n : null;
};

const isLine = (row: Element) => !row.classList.contains(BELOW_ROW) && !row.querySelector(".d2h-info");

/** The side and line a row of the drawn diff is, or null for hunk headers and placeholders. */
export function rowLine(row: Element): RowLine | null {
  if (!isLine(row)) return null;
  const sideTable = row.closest(".d2h-file-side-diff");
  if (sideTable) {
    const line = number(row.querySelector(".d2h-code-side-linenumber"));
    if (line === null) return null;
    const tables = [...sideTable.parentElement!.querySelectorAll(":scope > .d2h-file-side-diff")];
    return { side: tables.indexOf(sideTable) === 0 ? "old" : "new", line };
  }
  const newLine = number(row.querySelector(".line-num2"));
  if (newLine !== null) return { side: "new", line: newLine };
  const oldLine = number(row.querySelector(".line-num1"));
  return oldLine === null ? null : { side: "old", line: oldLine };
}

/** Every row of a drawn file that is a line, in order (in split view, the new side's, then the old's alone). */
export function lineRows(root: Element): HTMLTableRowElement[] {
  const tables = [...root.querySelectorAll(".d2h-file-side-diff")];
  const scope = tables.length === 2 ? tables[1]! : root;
  return [...scope.querySelectorAll<HTMLTableRowElement>("tbody tr")].filter((r) => rowLine(r) !== null);
}

/** The row showing `line` on `side`: a context line is on both sides. */
export function findRow(root: Element, side: DiffSide, line: number): HTMLTableRowElement | null {
  const tables = [...root.querySelectorAll(".d2h-file-side-diff")];
  if (tables.length === 2) {
    const table = tables[side === "old" ? 0 : 1]!;
    for (const row of table.querySelectorAll<HTMLTableRowElement>("tbody tr")) {
      const at = rowLine(row);
      if (at?.line === line) return row;
    }
    return null;
  }
  const cell = side === "old" ? ".line-num1" : ".line-num2";
  for (const row of root.querySelectorAll<HTMLTableRowElement>("tbody tr")) {
    if (isLine(row) && number(row.querySelector(cell)) === line) return row;
  }
  return null;
}

/** Inserts an empty full-width row after `row` and any rows already put in beneath it, for what goes beneath the line. */
export function insertBelowRow(row: HTMLTableRowElement): { row: HTMLTableRowElement; cell: HTMLTableCellElement } {
  let after: Element = row;
  while (after.nextElementSibling?.classList.contains(BELOW_ROW)) after = after.nextElementSibling;
  const inserted = document.createElement("tr");
  inserted.className = BELOW_ROW;
  const cell = document.createElement("td");
  cell.colSpan = 2;
  inserted.append(cell);
  after.after(inserted);
  return { row: inserted, cell };
}

/**
 * In split view, the row beside `row` in the other side's table: the sides' rows line up one to one,
 * so what is beneath a line on one side gets an empty row of its height beneath the other.
 */
export function facingRow(row: HTMLTableRowElement): HTMLTableRowElement | null {
  const table = row.closest(".d2h-file-side-diff");
  if (!table) return null;
  const tables = [...table.parentElement!.querySelectorAll(":scope > .d2h-file-side-diff")];
  const other = tables.find((t) => t !== table);
  if (!other) return null;
  const rows = (t: Element) => [...t.querySelectorAll<HTMLTableRowElement>("tbody tr")].filter((r) => !r.classList.contains(BELOW_ROW));
  return rows(other)[rows(table).indexOf(row)] ?? null;
}
