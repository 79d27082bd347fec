/**
 * Why the last open opened nothing (a missing file, a bad link, lines past the
 * end): shown under the path box until the next open or a dismissal, while the
 * file shown stays as it was and no tab is added for it.
 */
import { create } from 'zustand';

export interface OpenProblemState {
  problem: string | null;
  show(problem: string): void;
  clear(): void;
}

export const useOpenProblemStore = create<OpenProblemState>()((set) => ({
  problem: null,
  show: (problem) => set({ problem }),
  clear: () => set({ problem: null }),
}));
