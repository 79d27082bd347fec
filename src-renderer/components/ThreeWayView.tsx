import { useEffect, useRef, useState } from 'react';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { linesLabelOf } from '../model/conflict-text.ts';
import { loadMonaco } from '../monaco/load-monaco.ts';
import { loadThreeWay, resolveThreeWay, type ThreeWay } from '../stores/review-flow.ts';
import { ProposalEditor } from './ProposalEditor.tsx';
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

/**
 * A conflict resolved by hand: what the agent saw, what the file has now and what
 * the agent proposed, side by side; the proposed text is editable and is written
 * over the lines the proposal stands on now (which the person can adjust). The
 * edited text stays until it is written, cancelled or copied.
 */
export function ThreeWayView({ proposal, busy, onClose }: { proposal: ReviewProposal; busy: boolean; onClose(): void }) {
  const [sides, setSides] = useState<ThreeWay | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [range, setRange] = useState<{ startLine: number; endLine: number } | null>(null);
  useEffect(() => {
    let live = true;
    loadThreeWay(proposal)
      .then((s) => {
        if (!live) return;
        if (!s) setFailed('The 3-way view takes a proposal of one line edit.');
        setSides(s);
        if (s) {
          setText((t) => t ?? s.content);
          setRange((r) => r ?? s.region);
        }
      })
      .catch((err: unknown) => live && setFailed(String(err instanceof Error ? err.message : err)));
    return () => {
      live = false;
    };
  }, [proposal]);
  const language = languageOfProposalFile(proposal.path);
  const inRegion = (n: number) => range !== null && n >= range.startLine && n <= range.endLine;
  return (
    <div
      className="three-way"
      role="dialog"
      aria-modal="true"
      aria-label={`Resolve ${proposal.id}`}
      data-testid="three-way"
      onKeyDown={(event) => event.key === 'Escape' && onClose()}
    >
      <header>
        <h3>
          Resolve {proposal.id} <small>{proposal.path}</small>
        </h3>
        <button type="button" data-testid="three-way-close" onClick={onClose} title="Close (Escape); your text stays until you leave this proposal">
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
                  onChange={(event) => setRange({ ...range, startLine: Number(event.target.value) })}
                />
              </label>
              <label>
                –
                <input
                  type="number"
                  data-testid="three-way-end"
                  min={0}
                  value={range.endLine}
                  onChange={(event) => setRange({ ...range, endLine: Number(event.target.value) })}
                />
              </label>{' '}
              of the file now <small>(marked in the middle column)</small>
            </h4>
            <ProposalEditor initialText={text} onChange={setText} language={language} />
          </section>
          <footer className="decision">
            <button
              type="button"
              className="approve"
              data-testid="three-way-approve"
              disabled={busy}
              title={`Write your text over ${linesLabelOf(range.startLine, range.endLine)} of the file now`}
              onClick={() => void resolveThreeWay(proposal, text, range, sides.now.etag).then((ok) => ok && onClose())}
            >
              Approve resolved
            </button>
            <button type="button" data-testid="three-way-copy" onClick={() => void navigator.clipboard?.writeText(text)} title="Copy your text">
              Copy
            </button>
          </footer>
        </>
      )}
    </div>
  );
}
