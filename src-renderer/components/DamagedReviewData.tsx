import type { DamagedReviewFrame } from '../../src-main/api/schemas.ts';

/**
 * Review data that did not load (review_list's `damaged`, src-main/review/damaged.ts):
 * decisions it held may be missing from the queue and the applied edits, so the
 * person is told what was kept aside and where, until they delete the copy.
 */
export function DamagedReviewData({ damaged }: { damaged: DamagedReviewFrame[] }) {
  if (damaged.length === 0) return null;
  return (
    <section className="review-damaged" role="alert" data-testid="review-damaged">
      <strong>Damaged review data: decisions may be missing.</strong>
      <ul>
        {damaged.map((d) => (
          <li key={d.file} data-testid="review-damaged-item">
            {d.kind === 'torn_tail' ? 'An unfinished write' : 'A record that does not parse'} ({d.bytes} bytes at byte {d.offset} of .folio/review/{d.source})
            did not load. Kept aside in <code>{d.file}</code>; delete that file to dismiss this.
          </li>
        ))}
      </ul>
    </section>
  );
}
