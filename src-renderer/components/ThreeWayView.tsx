import { useEffect, useRef, useState } from 'react';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { linesLabelOf } from '../model/conflict-text.ts';
import { loadMonaco } from '../monaco/load-monaco.ts';
import { loadThreeWay, markersLeftIn, resolveThreeWay, type ThreeWay } from '../stores/review-flow.ts';
import { ProposalEditor } from './ProposalEditor.tsx';
import { useDialogFocus } from './use-dialog-focus.ts';
import { languageOfProposalFile } from './use-file-language.ts';

/** Lines with their file numbers; `marked` numbers are drawn as the proposal's region. */
function NumberedLines({
  text,
  lineNoOf,
  marked,
  testid,
  language,
}: {
  text: string;
  lineNoOf(i: number): number | string;
  marked?(lineNo: number): boolean;
  testid: string;
  /** the file's language: the lines are coloured as the editor colours them */
  language: string;
}) {
  const preRef = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const pre = preRef.current;
    if (!pre) return;
    void loadMonaco().then((m) => m.colorizeNodes([...pre.querySelectorAll<HTMLElement>('.text')], language));
  }, [text, language]);
  const lines = text === '' ? [] : text.split('\n');
  const digits = String(lineNoOf(Math.max(0, lines.length - 1))).length;
  return (
    // Focusable: a scrolling region must be reachable by keyboard (axe: scrollable-region-focusable).
    <pre className="numbered-lines" data-testid={testid} ref={preRef} tabIndex={0} style={{ ['--digits' as string]: Math.max(3, digits) }}>
      {lines.map((line, i) => {
        const n = lineNoOf(i);
        return (
          <div key={i} className={typeof n === 'number' && marked?.(n) ? 'marked' : undefined}>
            <span className="no">{n}</span>
            <span className="text">{line || '\u00a0'}</span>
          </div>
        );
      })}
    </pre>
  );
}

/** The person's text for the proposal's lines of the file now (which they can adjust), with the hunks that conflict marked. */
function ResolvedText({
  sides,
  range,
  onRange,
  text,
  onText,
  language,
}: {
  sides: ThreeWay;
  range: { startLine: number; endLine: number };
  onRange(range: { startLine: number; endLine: number }): void;
  text: string;
  onText(text: string): void;
  language: string;
}) {
  return (
    <section className="three-way-result">
      <h4>
        Your text for{' '}
        <label>
          lines{' '}
          <input
            type="number"
            data-testid="three-way-start"
            min={1}
            value={range.startLine}
            onChange={(event) => onRange({ ...range, startLine: Number(event.target.value) })}
          />
        </label>
        <label>
          –
          <input
            type="number"
            data-testid="three-way-end"
            min={0}
            value={range.endLine}
            onChange={(event) => onRange({ ...range, endLine: Number(event.target.value) })}
          />
        </label>{' '}
        of the file now <small>(marked in the middle column)</small>
      </h4>
      {sides.conflicts > 0 && (
        <p className="conflict" data-testid="three-way-conflicts">
          {sides.conflicts === 1 ? 'One hunk’s lines' : `${sides.conflicts} hunks’ lines`} changed since the agent read them: keep what you want between the
          markers and remove the markers.
        </p>
      )}
      <ProposalEditor initialText={text} onChange={onText} language={language} />
    </section>
  );
}

/**
 * A conflict resolved by hand, for every kind of proposal: what the agent saw
 * (its hunks' old lines), what the file has now and what the agent proposed
 * (their new lines), side by side; the text to write starts as the proposal's
 * region now with each hunk put in (a conflict block where its lines changed),
 * is editable, and is written over the lines the proposal stands on now (which
 * the person can adjust). A delete or move has no text: it is approved against
 * the file as it is now. The edited text stays until it is written, cancelled
 * or copied. A modal: focus stays inside, Escape closes, focus returns.
 */
export function ThreeWayView({ proposal, busy, onClose }: { proposal: ReviewProposal; busy: boolean; onClose(): void }) {
  const [sides, setSides] = useState<ThreeWay | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [range, setRange] = useState<{ startLine: number; endLine: number } | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const onKeyDown = useDialogFocus(rootRef, onClose, closeRef);
  useEffect(() => {
    let live = true;
    loadThreeWay(proposal)
      .then((s) => {
        if (!live) return;
        setSides(s);
        setText((t) => t ?? s.content);
        setRange((r) => r ?? s.region);
      })
      .catch((err: unknown) => live && setFailed(String(err instanceof Error ? err.message : err)));
    return () => {
      live = false;
    };
  }, [proposal]);
  const language = languageOfProposalFile(proposal.path);
  const inRegion = (n: number) => range !== null && n >= range.startLine && n <= range.endLine;
  const markers = text !== null && markersLeftIn(text);
  return (
    <div ref={rootRef} className="three-way" role="dialog" aria-modal="true" aria-labelledby="three-way-title" data-testid="three-way" onKeyDown={onKeyDown}>
      <header>
        <h3 id="three-way-title">
          Resolve {proposal.id} <small data-testid="three-way-label">{proposal.change.label}</small> <small>{proposal.path}</small>
        </h3>
        <button
          type="button"
          ref={closeRef}
          data-testid="three-way-close"
          onClick={onClose}
          title="Close (Escape); your text stays until you leave this proposal"
        >
          Close
        </button>
      </header>
      {failed && <p className="review-problem">{failed}</p>}
      {sides && range && text !== null && (
        <>
          <div className="three-way-columns">
            <section>
              <h4>What the agent saw</h4>
              <NumberedLines testid="three-way-saw" language={language} text={sides.saw.text} lineNoOf={(i) => sides.saw.lineNos[i] ?? ''} />
            </section>
            <section>
              <h4>What the file has now</h4>
              <NumberedLines testid="three-way-now" language={language} text={sides.now.text} lineNoOf={(i) => sides.now.startLine + i} marked={inRegion} />
            </section>
            <section>
              <h4>What the agent proposed</h4>
              <NumberedLines testid="three-way-proposed" language={language} text={sides.proposed.text} lineNoOf={(i) => sides.proposed.lineNos[i] ?? ''} />
            </section>
          </div>
          {sides.fileOp ? (
            <p className="three-way-result" data-testid="three-way-file-op">
              {proposal.change.label}: approved as it is, against the file as it is now.
            </p>
          ) : (
            <ResolvedText sides={sides} range={range} onRange={setRange} text={text} onText={setText} language={language} />
          )}
          <footer className="decision">
            <button
              type="button"
              className="approve"
              data-testid="three-way-approve"
              disabled={busy || markers}
              title={
                markers
                  ? 'Remove the conflict markers first'
                  : sides.fileOp
                    ? `${proposal.change.label}, on the file as it is now`
                    : `Write your text over ${linesLabelOf(range.startLine, range.endLine)} of the file now`
              }
              onClick={() => void resolveThreeWay(proposal, text, range, sides.now.etag, sides.fileOp).then((ok) => ok && onClose())}
            >
              Approve resolved
            </button>
            {!sides.fileOp && (
              <button type="button" data-testid="three-way-copy" onClick={() => void navigator.clipboard?.writeText(text)} title="Copy your text">
                Copy
              </button>
            )}
          </footer>
        </>
      )}
    </div>
  );
}
