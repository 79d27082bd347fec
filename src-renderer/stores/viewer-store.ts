/**
 * The viewer store: which file is open and what file_info says about it. Only the
 * latest request may land, so typing paths quickly never shows a stale answer.
 */
import { create } from 'zustand';
import type { FileInfo } from '../../src-main/api/schemas.ts';
import { call, FolioCallError, type ErrorPayload } from '../transport.ts';

export interface ViewerState {
  path: string | null;
  info: FileInfo | null;
  error: ErrorPayload | null;
  loading: boolean;
  openFile(path: string): Promise<void>;
}

let latestRequest = 0;

export const useViewerStore = create<ViewerState>()((set) => ({
  path: null,
  info: null,
  error: null,
  loading: false,
  async openFile(path) {
    const request = ++latestRequest;
    set({ path, loading: true, error: null });
    try {
      const info = await call('file_info', { path });
      if (request === latestRequest) set({ info, loading: false });
    } catch (err) {
      if (request !== latestRequest) return;
      const error =
        err instanceof FolioCallError
          ? { code: err.code, message: err.message, ...err.details }
          : { code: 'internal', message: err instanceof Error ? err.message : String(err) };
      set({ info: null, error, loading: false });
    }
  },
}));
