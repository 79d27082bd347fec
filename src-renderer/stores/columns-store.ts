/**
 * JSON Lines columns (c, or the Columns button): on or off, the fields chosen
 * (null: the defaults, model/json-columns.ts), and the fields seen in the lines
 * in view, which the chooser offers.
 */
import { create } from 'zustand';

export interface ColumnsState {
  on: boolean;
  chosen: string[] | null;
  seen: string[];
  toggle(): void;
  setChosen(fields: string[]): void;
  setSeen(fields: string[]): void;
}

export const useColumnsStore = create<ColumnsState>()((set, get) => ({
  on: false,
  chosen: null,
  seen: [],
  toggle: () => set((s) => ({ on: !s.on })),
  setChosen: (fields) => set({ chosen: fields }),
  setSeen(fields) {
    const now = get().seen;
    if (fields.length !== now.length || fields.some((f, i) => f !== now[i])) set({ seen: fields });
  },
}));
