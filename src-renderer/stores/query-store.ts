/**
 * The query panel's state (issue 31): SQL over the open log (the `query`
 * operation), its answer or its typed error, and the columns the table has.
 *
 * Cancel aborts the run's request: in the browser (`folio serve`) the server then
 * kills the query's process (the HTTP door aborts a call whose client went
 * away); through the Electron bridge, which cannot abort a call, the answer is only
 * dropped and the query runs to its end or its 10-minute time limit.
 */
import { create } from 'zustand';
import type { z } from 'zod';
import type { QueryOutput } from '../../src-main/api/schemas/query.ts';
import { call, FolioCallError } from '../transport.ts';
import { useTabStore } from './tab-store.ts';
import { useViewerStore } from './viewer-store.ts';

export const EXAMPLE_SQL = 'SELECT level, count(*) AS n FROM log GROUP BY level ORDER BY n DESC';
/** The table's own columns (docs/API.md, "Queries over log fields"); key columns follow. */
export const LOG_COLUMNS = ['file', 'line', 'offset', 'lines', 'time', 'level', 'message', 'raw', 'fields'] as const;
export const QUERY_ROW_LIMIT = 1000;

export interface QueryProblem {
  code: string;
  message: string;
}

export interface QueryState {
  open: boolean;
  sql: string;
  running: boolean;
  result: (z.infer<typeof QueryOutput> & { path: string }) | null;
  problem: QueryProblem | null;
  /** Set when a run was cancelled: what became of it. */
  note: string | null;
  /** The key columns of the open log (from a first one-row query), null until known. */
  keyColumns: string[] | null;
  keyColumnsPath: string | null;
  toggle(): void;
  hide(): void;
  setSql(sql: string): void;
  run(): Promise<void>;
  cancel(): void;
  loadColumns(): Promise<void>;
  /** Show row `i`'s line: in this tab, or in its file's tab. */
  openRow(i: number): Promise<void>;
}

let runNo = 0;
let inFlight: AbortController | null = null;

/** What Cancel did, as the panel says it. */
export const CANCELLED_NOTE = 'Cancelled: the query was stopped.';
export const CANCELLED_NOTE_BRIDGE = 'Cancelled: its answer will be dropped (in the desktop app the query runs on to its end).';

function problemOf(err: unknown): QueryProblem {
  if (err instanceof FolioCallError) {
    const sqlite = typeof err.details.sqlite === 'string' ? err.details.sqlite : null;
    const reason = typeof err.details.reason === 'string' ? ` (${err.details.reason})` : '';
    return { code: err.code, message: (sqlite ?? err.message) + reason };
  }
  return { code: 'error', message: String(err) };
}

export const useQueryStore = create<QueryState>()((set, get) => ({
  open: false,
  sql: EXAMPLE_SQL,
  running: false,
  result: null,
  problem: null,
  note: null,
  keyColumns: null,
  keyColumnsPath: null,
  toggle: () => set((s) => ({ open: !s.open })),
  hide: () => set({ open: false }),
  setSql: (sql) => set({ sql }),
  async run() {
    const path = useViewerStore.getState().path;
    const sql = get().sql.trim();
    if (!path || !sql) return;
    const mine = ++runNo;
    inFlight?.abort();
    const controller = (inFlight = new AbortController());
    set({ running: true, problem: null, note: null });
    try {
      const r = await call('query', { paths: [path], sql, limit: QUERY_ROW_LIMIT }, controller.signal);
      if (mine === runNo) set({ running: false, result: { ...r, path } });
    } catch (err) {
      if (mine === runNo) set({ running: false, problem: problemOf(err), result: null });
    } finally {
      if (inFlight === controller) inFlight = null;
    }
  },
  cancel() {
    if (!get().running) return;
    runNo++;
    inFlight?.abort();
    inFlight = null;
    set({ running: false, note: window.folio ? CANCELLED_NOTE_BRIDGE : CANCELLED_NOTE });
  },
  async loadColumns() {
    const path = useViewerStore.getState().path;
    if (!path || get().keyColumnsPath === path) return;
    set({ keyColumnsPath: path, keyColumns: null });
    try {
      const r = await call('query', { paths: [path], sql: 'SELECT line FROM log LIMIT 1', limit: 1 });
      if (get().keyColumnsPath === path) set({ keyColumns: r.key_columns });
    } catch {
      // the hint stays at the table's own columns
    }
  },
  async openRow(i) {
    const link = get().result?.links?.[i];
    if (!link) return;
    const viewer = useViewerStore.getState();
    if (viewer.path === link.path) await viewer.goToLine(link.line, { at: 'center', select: true });
    else await useTabStore.getState().open(link.path, { startLine: link.line, endLine: link.line });
  },
}));
