import { useEffect, useRef, useState } from 'react';
import type { RecentEntry } from '../../src-main/api/schemas.ts';
import { ageLabelOf } from '../model/file-labels.ts';

/** "Recent" menu: the recently opened files, most recent first; a missing one is shown struck out and cannot be opened. */
export function RecentFiles({ entries, onShow, onOpen }: { entries: RecentEntry[]; onShow(): void; onOpen(path: string): void }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);
  const toggle = () => {
    if (!open) onShow();
    setOpen(!open);
  };
  const now = Date.now();
  return (
    <div className="recent-files" ref={root} onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}>
      <button
        type="button"
        data-testid="recent-toggle"
        aria-expanded={open}
        aria-haspopup="true"
        aria-label="Recent files"
        onClick={toggle}
        title="Recently opened files"
      >
        Recent ▾
      </button>
      {open && (
        <ul className="recent-list" data-testid="recent-list" role="menu">
          {entries.length === 0 && <li className="muted">No files opened yet.</li>}
          {entries.map((e) => (
            <li key={e.path} role="none">
              <button
                type="button"
                role="menuitem"
                data-testid="recent-file"
                data-missing={e.missing}
                disabled={e.missing}
                title={e.missing ? `${e.path} is gone` : e.path}
                onClick={() => {
                  setOpen(false);
                  onOpen(e.path);
                }}
              >
                <span className="file">{e.path}</span>
                <span className="age">{e.missing ? 'missing' : ageLabelOf(e.opened_at, now)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
