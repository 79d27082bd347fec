/** Whether the file view wraps long lines (Alt+Z, as VS Code); off by default, so one row is one line. */
import { create } from 'zustand';

export const useWrapStore = create<{ wrap: boolean; toggle(): void }>()((set) => ({
  wrap: false,
  toggle: () => set((s) => ({ wrap: !s.wrap })),
}));
