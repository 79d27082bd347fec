import { useEffect, useState } from 'react';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { cellTextOf, defaultColumnsOf, jsonObjectOf, keysSeenOf } from '../model/json-columns.ts';
import { useColumnsStore } from '../stores/columns-store.ts';

interface ColumnRow {
  lineNo: number;
  /** px from the top of the view, as the editor places the row */
  top: number;
  cells: string[];
}

interface ColumnsView {
  fields: string[];
  /** per field, in characters */
  widths: number[];
  rows: ColumnRow[];
}

const EMPTY: ColumnsView = { fields: [], widths: [], rows: [] };
/** The editor's row height (monaco.ts READ_ONLY_OPTIONS). */
const ROW_PX = 19;

/**
 * The chosen JSON Lines fields of the lines in view, as columns beside the editor's
 * rows (its own injected text is not rendered by this build: see use-window-marks).
 * Only the rows in view are parsed, again after each scroll, window or choice; the
 * fields they hold are offered in the chooser (JsonColumnsBar).
 */
export function JsonColumns({ editor, fileLineOf }: { editor: MonacoEditor; fileLineOf(row: number): number | null }) {
  const chosen = useColumnsStore((s) => s.chosen);
  const [view, setView] = useState<ColumnsView>(EMPTY);

  useEffect(() => {
    const update = () => {
      const model = editor.getModel();
      const ranges = editor.getVisibleRanges();
      if (!model || ranges.length === 0) return setView(EMPTY);
      const scrollTop = editor.getScrollTop();
      const lines: { lineNo: number; top: number; object: Record<string, unknown> | null }[] = [];
      for (let row = ranges[0]!.startLineNumber; row <= ranges[ranges.length - 1]!.endLineNumber; row++) {
        const lineNo = fileLineOf(row);
        if (lineNo === null) continue;
        lines.push({ lineNo, top: editor.getTopForLineNumber(row) - scrollTop, object: jsonObjectOf(model.getLineContent(row)) });
      }
      const seen = keysSeenOf(lines.map((l) => l.object));
      useColumnsStore.getState().setSeen(seen);
      const fields = useColumnsStore.getState().chosen ?? defaultColumnsOf(seen);
      const rows = lines.map((l) => ({ lineNo: l.lineNo, top: l.top, cells: fields.map((f) => (l.object ? cellTextOf(l.object[f]) : '')) }));
      const widths = fields.map((f, i) => Math.max(f.length, ...rows.map((r) => r.cells[i]!.length)));
      setView({ fields, widths, rows });
    };
    // On the next frame: FileView maps rows to file lines after it has set the window's text.
    let frame = requestAnimationFrame(update);
    const schedule = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(update);
    };
    const listeners = [editor.onDidScrollChange(schedule), editor.onDidLayoutChange(schedule), editor.onDidChangeModelContent(schedule)];
    return () => {
      cancelAnimationFrame(frame);
      for (const l of listeners) l.dispose();
    };
  }, [editor, fileLineOf, chosen]);

  const width = view.widths.reduce((sum, w) => sum + w + 2, 0);
  return (
    <div
      className="json-columns"
      data-testid="json-columns"
      aria-label="JSON fields of the lines in view"
      role="group"
      style={{ width: `${Math.max(width, 4)}ch` }}
    >
      {view.rows.map((row) => (
        <div className="json-columns-row" key={row.lineNo} data-line-no={row.lineNo} style={{ top: row.top, height: ROW_PX }}>
          {row.cells.map((cell, i) => (
            <span className="json-cell" key={view.fields[i]} data-field={view.fields[i]} style={{ width: `${view.widths[i]! + 2}ch` }} title={cell}>
              {cell}
            </span>
          ))}
        </div>
      ))}
    </div>
  );
}

/** The columns' chooser, above the file view while they are on: the fields of the lines in view, each a toggle. */
export function JsonColumnsBar() {
  const seen = useColumnsStore((s) => s.seen);
  const chosen = useColumnsStore((s) => s.chosen);
  const shown = chosen ?? defaultColumnsOf(seen);
  const toggle = (field: string) => {
    // A field turned on becomes the last column.
    useColumnsStore.getState().setChosen(shown.includes(field) ? shown.filter((f) => f !== field) : [...shown, field]);
  };
  return (
    <section className="json-columns-bar" aria-label="Columns" data-testid="json-columns-bar">
      <strong>Columns</strong>
      {seen.length === 0 && <span className="muted">No JSON objects in view</span>}
      {seen.map((field) => (
        <button type="button" key={field} aria-pressed={shown.includes(field)} onClick={() => toggle(field)}>
          {field}
        </button>
      ))}
    </section>
  );
}
