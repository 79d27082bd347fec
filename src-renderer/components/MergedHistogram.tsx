import { useEffect } from 'react';
import { count } from '../model/file-labels.ts';
import { bucketLabelOf, durationLabelOf, levelTotalsOf } from '../model/histogram-labels.ts';
import { useMergeStore } from '../stores/merge-store.ts';
import { useMergedHistogramStore } from '../stores/merged-histogram-store.ts';
import { HISTOGRAM_LEVELS } from '../stores/time-store.ts';

/**
 * The merged view's histogram, in the file histogram's look (HistogramPanel):
 * one bar per time bucket over all the merged files, stacked by level; a click
 * or Enter on a bar starts the merged view at its time.
 */
export function MergedHistogram() {
  const { histogram: h, computing, error } = useMergedHistogramStore();
  const paths = useMergeStore((s) => s.paths);
  // Other files merged: count them.
  useEffect(() => {
    const st = useMergedHistogramStore.getState();
    if (st.histogram && st.histogram.paths !== paths && !st.computing) void st.compute();
  }, [paths]);
  const max = h ? Math.max(1, ...h.buckets.map((b) => b.error + b.warn + b.info + b.debug + b.other)) : 1;
  const totals = h ? levelTotalsOf(h.buckets) : null;
  return (
    <section
      className="histogram-panel"
      aria-label="Merged histogram"
      data-testid="merged-histogram"
      data-bucket-ms={h?.bucketMs}
      onKeyDown={(e) => e.key === 'Escape' && useMergedHistogramStore.getState().toggle()}
    >
      <header className="histogram-header">
        <strong>Histogram of the merged view</strong>
        {h && (
          <span data-testid="merged-histogram-summary">
            {count.format(h.lines)} lines · {h.buckets.length} × {durationLabelOf(h.bucketMs)}
          </span>
        )}
        {computing && <span role="status">counting…</span>}
        {totals && (
          <span className="histogram-legend">
            {HISTOGRAM_LEVELS.map((l) => (
              <span key={l} className={`level-${l}`} data-testid={`merged-histogram-total-${l}`}>
                {l} {count.format(totals[l])}
              </span>
            ))}
          </span>
        )}
        <button type="button" onClick={() => useMergedHistogramStore.getState().toggle()} aria-label="Close merged histogram">
          ×
        </button>
      </header>
      {error && (
        <p className="histogram-error" role="alert" data-testid="merged-histogram-error">
          {error}
        </p>
      )}
      {h && (
        <div className="histogram-bars">
          {h.buckets.map((b, i) => {
            const total = b.error + b.warn + b.info + b.debug + b.other;
            const start = h.originMs + i * h.bucketMs;
            const label = `${bucketLabelOf(start, h.bucketMs)}: ${count.format(total)} lines (${HISTOGRAM_LEVELS.map((l) => `${l} ${count.format(b[l])}`).join(', ')})`;
            return (
              <button
                key={i}
                type="button"
                className="histogram-bar"
                aria-label={label}
                title={label}
                data-start={new Date(start).toISOString()}
                data-total={total}
                onClick={() => void useMergedHistogramStore.getState().jumpToBucket(i)}
              >
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
