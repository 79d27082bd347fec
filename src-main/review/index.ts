/** The review layer's surface: what api/ may call. */
export { applyDirect, history, redo, undo, type StepOptions, type StepResult } from './journal.ts';
export { applyFileOp, applyOwnFileOp } from './journal.ts';
export { proposeFileOp, type ProposeFileOpResult } from './proposals.ts';
export type { FileOpCall } from './file-op-journal.ts';
export { listProposals, propose, showProposal, type ProposeRequest, type ProposeResult } from './proposals.ts';
export { approve, reject, type ApproveResult } from './decisions.ts';
export { forgetStores, stateDirOf, storeOf, ReviewStore } from './store.ts';
export { loadBytes, INLINE_MAX_BYTES } from './blobs.ts';
export { watch } from './watch.ts';
export type { JournalEntry, JournalEvent, Proposal, ProposalStatus, ReviewActor, StoredBytes } from './types.ts';
export { PROPOSAL_STATUSES } from './types.ts';
export { entryView, proposalView, wireTargetOf, type EntryView, type ProposalView } from './views.ts';
export { approveBatch, rejectBatch, type BatchFilter, type BatchResult } from './batch.ts';
