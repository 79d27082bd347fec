import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { agentsOf, changedFilesOf } from '../model/changed-files.ts';
import { filesKeyLabelsOf, filesKeyOf } from '../model/review-keys.ts';
import { showFile } from '../stores/review-flow.ts';
import { useReviewStore, type ReviewState } from '../stores/review-store.ts';
import './changed-files.css';

const MAC = /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = MAC ? 'Cmd' : 'Ctrl';
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const nameOf = (path: string) => path.split(/[\\/]/).pop() ?? path;

/**
 * The session's changed files (Ctrl+Shift+E): file, what the change is, pending
 * hunks, agents. Enter or a click opens a file at its first pending hunk; the
 * arrow keys move in the list. Accept all / Reject all for the active file, for
 * an agent or for the whole session: each one review_batch, one undo step.
 * Escape closes it and gives the focus back where it was.
 */
export function ChangedFiles({ queue, onClose }: { queue: ReviewProposal[]; onClose(): void }) {
  const rows = useMemo(() => changedFilesOf(queue), [queue]);
  const agents = useMemo(() => agentsOf(queue), [queue]);
  const { busy, decideBatch } = useReviewStore();
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const returnTo = useRef<Element | null>(null);
  const at = Math.min(active, Math.max(0, rows.length - 1));
  const row = rows[at];
  const pendingFiles = rows.filter((r) => r.pendingHunks > 0).length;
  const pendingHunks = rows.reduce((n, r) => n + r.pendingHunks, 0);

  useEffect(() => {
    returnTo.current = document.activeElement;
    (listRef.current ?? rootRef.current)?.focus();
    return () => focusBack(returnTo.current);
  }, []);
  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [at]);
  useEffect(() => {
    // The list (or a button) that had the focus went with the last decision: the dialog keeps it, so its keys still work.
    if (!rootRef.current?.contains(document.activeElement)) (listRef.current ?? rootRef.current)?.focus();
  }, [rows.length, busy]);

  const open = (path: string) => {
    const back = returnTo.current;
    onClose();
    // Opening a file may put a new editor in the file view: the focus goes to it once shown.
    void showFile(path).then(() => focusBack(back));
  };
  const session = (decision: Decision) => void decideBatch(decision, { all: true }, 'The whole session');
  const file = (decision: Decision) => {
    if (row) void decideBatch(decision, { path: row.path }, nameOf(row.path));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Tab') return trapTab(event, rootRef.current);
    const action = filesKeyOf(event);
    if (!action) return;
    // Moving and opening belong to the list; the decisions and Escape work anywhere in the dialog.
    const inList = event.target === listRef.current;
    if (!inList && ['down', 'up', 'first', 'last', 'open'].includes(action)) return;
    event.preventDefault();
    event.stopPropagation();
    const last = rows.length - 1;
    if (action === 'down') setActive(Math.min(last, at + 1));
    else if (action === 'up') setActive(Math.max(0, at - 1));
    else if (action === 'first') setActive(0);
    else if (action === 'last') setActive(last);
    else if (action === 'open') {
      if (row) open(row.path);
    } else if (action === 'close') onClose();
    else if (busy) return;
    else if (action === 'acceptFile') file('approve');
    else if (action === 'rejectFile') file('reject');
    else if (action === 'acceptAll') session('approve');
    else if (action === 'rejectAll') session('reject');
  };

  return (
    <div
      className="changed-files"
      role="dialog"
      aria-modal="true"
      aria-labelledby="changed-files-title"
      data-testid="changed-files"
      ref={rootRef}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <header>
        <h3 id="changed-files-title">Changed files</h3>
        <span className="muted" data-testid="changed-files-summary">
          {rows.length ? `${plural(pendingFiles, 'file')}, ${plural(pendingHunks, 'pending hunk')}` : 'Nothing waits for a decision.'}
        </span>
        <button type="button" data-testid="changed-files-close" onClick={onClose} title="Close (Escape)">
          Close
        </button>
      </header>
      <SessionActions busy={busy} pendingHunks={pendingHunks} files={rows.length} onDecide={session} />
      {rows.length > 0 && <ChangedFileList rows={rows} at={at} listRef={listRef} onOpen={open} onHover={(i) => i !== at && setActive(i)} />}
      {row && <FileActions path={row.path} pendingHunks={row.pendingHunks} busy={busy} onDecide={file} />}
      {agents.length > 0 && <AgentActions agents={agents} busy={busy} decideBatch={decideBatch} />}
      <p className="muted keys">
        {filesKeyLabelsOf(MAC)
          .map(([k, does]) => `${k}: ${does.toLowerCase()}`)
          .join(' · ')}
      </p>
    </div>
  );
}

type Decision = 'approve' | 'reject';
type Row = ReturnType<typeof changedFilesOf>[number];
type Agent = ReturnType<typeof agentsOf>[number];

/** Accept all / Reject all for the whole session. */
function SessionActions({ busy, pendingHunks, files, onDecide }: { busy: boolean; pendingHunks: number; files: number; onDecide(d: Decision): void }) {
  return (
    <div className="changed-files-actions" role="group" aria-label="The whole session">
      <button
        type="button"
        className="approve"
        data-testid="session-accept-all"
        disabled={busy || pendingHunks === 0}
        onClick={() => onDecide('approve')}
        title={`Accept every pending change of the session: one undo takes it back (Shift+${MOD}+Enter)`}
      >
        Accept all
      </button>
      <button
        type="button"
        data-testid="session-reject-all"
        disabled={busy || files === 0}
        onClick={() => onDecide('reject')}
        title={`Reject every pending change of the session, with the reason typed in the panel (Shift+${MOD}+Backspace)`}
      >
        Reject all
      </button>
    </div>
  );
}

/** The list of changed files, `at` the active row. */
function ChangedFileList({
  rows,
  at,
  listRef,
  onOpen,
  onHover,
}: {
  rows: Row[];
  at: number;
  listRef: RefObject<HTMLUListElement | null>;
  onOpen(path: string): void;
  onHover(i: number): void;
}) {
  return (
    <ul
      className="changed-files-list"
      role="listbox"
      aria-label="Changed files"
      aria-activedescendant={rows[at] ? `changed-file-${at}` : undefined}
      tabIndex={0}
      ref={listRef}
      data-testid="changed-files-list"
    >
      {rows.map((r, i) => (
        <li
          key={r.path}
          id={`changed-file-${i}`}
          role="option"
          aria-selected={i === at}
          className={i === at ? 'active' : ''}
          data-testid="changed-file"
          data-path={r.path}
          onClick={() => onOpen(r.path)}
          onMouseMove={() => onHover(i)}
        >
          <span className="file">{r.path}</span>
          <span className="hunks">{r.pendingHunks ? plural(r.pendingHunks, 'hunk') : ''}</span>
          <span className="kind" data-kind={r.kind}>
            {describedOf(r)}
          </span>
          <span className="agents">{r.agents.join(', ')}</span>
          {r.conflicts > 0 && <span className="badge conflict">{plural(r.conflicts, 'conflict')}</span>}
        </li>
      ))}
    </ul>
  );
}

/** Accept / Reject the whole active file. */
function FileActions({ path, pendingHunks, busy, onDecide }: { path: string; pendingHunks: number; busy: boolean; onDecide(d: Decision): void }) {
  return (
    <div className="changed-files-actions" role="group" aria-label={`All of ${nameOf(path)}`}>
      <span className="muted">{nameOf(path)}:</span>
      <button
        type="button"
        className="approve"
        data-testid="file-accept-all"
        disabled={busy || pendingHunks === 0}
        onClick={() => onDecide('approve')}
        title={`${MOD}+Enter`}
      >
        Accept file
      </button>
      <button type="button" data-testid="file-reject-all" disabled={busy} onClick={() => onDecide('reject')} title={`${MOD}+Backspace`}>
        Reject file
      </button>
    </div>
  );
}

/** Accept / Reject all of each agent. */
function AgentActions({ agents, busy, decideBatch }: { agents: Agent[]; busy: boolean; decideBatch: ReviewState['decideBatch'] }) {
  return (
    <section aria-label="By agent">
      <h4>By agent</h4>
      {agents.map((a) => (
        <div key={a.actor} className="changed-files-actions" role="group" aria-label={`All of ${a.name}`} data-testid="agent-row">
          <span>
            {a.name} <small className="muted">({plural(a.pending, 'proposal')})</small>
          </span>
          <button type="button" className="approve" disabled={busy} onClick={() => void decideBatch('approve', { actor: a.actor }, a.name)}>
            Accept all of {a.name}
          </button>
          <button type="button" disabled={busy} onClick={() => void decideBatch('reject', { actor: a.actor }, a.name)}>
            Reject all of {a.name}
          </button>
        </div>
      ))}
    </section>
  );
}

/** What the row's change is: its labels, led by the kind where no label says it ("edit, 2 hunks, lines 3, 119–121"). */
function describedOf(r: { kind: string; labels: string[] }): string {
  const text = r.labels.join('; ');
  return r.kind.split(', ').every((k) => r.labels.some((l) => l.startsWith(k))) ? text : `${r.kind}: ${text}`;
}

/** Give the focus back to `el`; if it was in the file view, whose editor was replaced since, to the editor there now. */
function focusBack(el: Element | null) {
  if (el instanceof HTMLElement && el.isConnected) return el.focus();
  if (el?.closest('[data-testid="file-view"]') || el === null || el === document.body)
    document.querySelector<HTMLElement>('[data-testid="file-view"] textarea')?.focus();
}

/** Keep Tab inside the dialog: from its last control to its first and back. */
function trapTab(event: KeyboardEvent, root: HTMLElement | null) {
  if (!root) return;
  const controls = [...root.querySelectorAll<HTMLElement>('button:not([disabled]), [tabindex="0"]')];
  if (controls.length === 0) return;
  const first = controls[0]!;
  const last = controls[controls.length - 1]!;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}
