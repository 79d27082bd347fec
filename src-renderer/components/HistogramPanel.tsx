import { useEffect } from 'react';
import { count } from '../model/file-labels.ts';
import { bucketLabelOf, durationLabelOf, levelTotalsOf } from '../model/histogram-labels.ts';
import { HISTOGRAM_LEVELS, useTimeStore } from '../stores/time-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/**
 * The histogram of the open log (lnav's histogram view): one bar per time bucket
 * over the whole file, stacked by level (error, warn, info, debug, other). Each
 * bar is a button named by its time and counts; a click or Enter shows the first
 * line of that time in the view. Bars fill in as the slices are counted.
 */
export function HistogramPanel() {
  const { histogram: h, computing, doneBytes, totalBytes, error, jumpProblem } = useTimeStore();
  const { hide, compute, jumpToBucket } = useTimeStore.getState();
  // Another file opened: count it.
  const path = useViewerStore((s) => s.path);
  const hasInfo = useViewerStore((s) => s.info !== null);
  useEffect(() => {
    if (path && hasInfo && !computing && h?.path !== path && !error) void compute();
  }, [path, hasInfo, computing, h, error, compute]);
  const percent = totalBytes > 0 ? Math.floor((100 * doneBytes) / totalBytes) : 100;
  const max = h ? Math.max(1, ...h.buckets.map((b) => b.error + b.warn + b.info + b.debug + b.other)) : 1;
  const totals = h ? levelTotalsOf(h.buckets) : null;
  return (
    <section className="histogram-panel" aria-label="Histogram" data-testid="histogram-panel" onKeyDown={(e) => e.key === 'Escape' && hide()}>
      <header className="histogram-header">
        <strong>Histogram</strong>
        {h && (
          <span data-testid="histogram-summary">
            {count.format(h.lines)} lines · {h.buckets.length} × {durationLabelOf(h.bucketMs)} · {bucketLabelOf(h.originMs, h.bucketMs).split(' – ')[0]} to{' '}
            {h.lastTime
              .replace('T', ' ')
              .replace(/\.\d+Z$/, '')
              .replace(/Z$/, '')}{' '}
            UTC
          </span>
        )}
        {computing && (
          <span className="histogram-progress" role="status" data-testid="histogram-progress">
            <progress max={100} value={percent} aria-label="Histogram progress" /> {percent}% counted
          </span>
        )}
        {totals && (
          <span className="histogram-legend">
            {HISTOGRAM_LEVELS.map((l) => (
              <span key={l} className={`level-${l}`} data-testid={`histogram-total-${l}`}>
                {l} {count.format(totals[l])}
              </span>
            ))}
          </span>
        )}
        <button type="button" onClick={hide} aria-label="Close histogram">
          ×
        </button>
      </header>
      {error && (
        <p className="histogram-error" role="alert" data-testid="histogram-error">
          {error}
        </p>
      )}
      {h?.orderBreak && (
        <p className="histogram-note" data-testid="histogram-order">
          Not in time order from line {count.format(h.orderBreak.line)} ({h.orderBreak.time} after {h.orderBreak.timeBefore}): bars count lines by their own
          stamps, clicking cannot bisect.
        </p>
      )}
      {jumpProblem && (
        <p className="histogram-error" role="alert" data-testid="histogram-jump-problem">
          {jumpProblem}
        </p>
      )}
      {h && (
        <div className="histogram-bars" data-testid="histogram-bars">
          {h.buckets.map((b, i) => {
            const total = b.error + b.warn + b.info + b.debug + b.other;
            const label = `${bucketLabelOf(h.originMs + i * h.bucketMs, h.bucketMs)}: ${count.format(total)} lines (${HISTOGRAM_LEVELS.map((l) => `${l} ${count.format(b[l])}`).join(', ')})`;
            return (
              <button key={i} type="button" className="histogram-bar" aria-label={label} title={label} data-bucket={i} onClick={() => void jumpToBucket(i)}>
                {/* Stacked from the bottom: error lowest, so the red is always seen. */}
                {HISTOGRAM_LEVELS.map((l) =>
                  b[l] > 0 ? <span key={l} className={`bar-part level-${l}`} style={{ height: `${(100 * b[l]) / max}%` }} /> : null,
                )}
              </button>
            );
          })}
        </div>
      )}
    </section>
  );
}
