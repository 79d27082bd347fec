/**
 * The decision on a proposal as its proposer sees it (the proposal_status
 * operation): status, who decided and when, the reason or conflict, and once
 * applied the version and range written. Optionally waits for the decision,
 * woken by the review store's watcher rather than polling.
 */
import type { ProposalStatusOutput } from '../schemas/agent.ts';

/** The review layer (and Automerge with it), loaded by the first status asked, not by an MCP start. */
const reviewModules = () => Promise.all([import('../../review/changes.ts'), import('../../review/proposals.ts'), import('../../review/watch.ts')]);
type Review = Awaited<ReturnType<typeof reviewModules>>;

function statusOf([{ changeSummaryOf }, { showProposal }]: Review, root: string, id: string): ProposalStatusOutput {
  const { proposal, entry } = showProposal(root, id);
  return {
    proposal_id: proposal.id,
    status: proposal.status,
    path: proposal.path,
    decided_by: proposal.decided_by,
    decided_at: proposal.decided_at,
    reason: proposal.reason,
    conflict: proposal.conflict,
    ...(proposal.hunks ? { hunks: proposal.hunks.map((status, i) => ({ index: i + 1, status })) } : {}),
    ...(entry ? { version_after: entry.version_after, range_after: entry.range_after } : {}),
    change: changeSummaryOf(proposal),
  };
}

/** The status of proposal `id` in the workspace `root`; while pending, waits up to `waitMs` for a decision. */
export async function proposalStatus(root: string, id: string, waitMs = 0): Promise<ProposalStatusOutput> {
  const review = await reviewModules();
  const [, , { watch }] = review;
  const now = statusOf(review, root, id);
  if (now.status !== 'pending' || !waitMs) return now;
  return new Promise((resolveWait) => {
    const timer = setTimeout(() => finish(), waitMs);
    const off = watch(root, () => {
      const later = statusOf(review, root, id);
      if (later.status !== 'pending') finish(later);
    });
    function finish(later = statusOf(review, root, id)) {
      clearTimeout(timer);
      off();
      resolveWait(later);
    }
  });
}
