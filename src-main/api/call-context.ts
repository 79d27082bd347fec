/**
 * Who calls an operation and in what context, and the two things every run
 * derives from that context: the workspace it works in, and the remote locators'
 * operations connected as that workspace's config says. One home for the
 * operation table (operations.ts) and the quick runs (runs.ts) alike.
 */
export interface Actor {
  kind: 'human' | 'agent';
  name: string;
}

/** Per-call context a door may pass: progress of long work, and cancellation. */
export interface CallContext {
  onProgress?: (p: { bytesDone: number; totalBytes: number }) => void;
  signal?: AbortSignal;
  /** The workspace root the door serves (review state lives in <workspace>/.folio); default process.cwd(). */
  workspace?: string;
  /** Caps on what one read returns (the agent guard passes the workspace's); default the engine's. */
  readCaps?: { maxBytes?: number; maxFullBytes?: number };
  /** Writes go only to the path as the caller checked it (the agent guard: engine/write/write-target.ts). */
  checked?: { allowHardlinks: boolean };
  /**
   * The caller exits after this call (the CLI): a person's own edit of one file is
   * journaled as a record the next review user folds in (review/applied-log.ts),
   * without loading the review document (Automerge).
   */
  deferJournal?: boolean;
  /** An upsert with if_none_match may create missing folders (default true: a person's own call; the agent guard passes its policy). */
  createFolders?: boolean;
  /**
   * Directory walks (search_tree, list): which entries the caller may see (the agent
   * guard: deny globs), and files opened as the walk saw them, hard links refused
   * unless allowed. Entries it refuses are skipped silently.
   */
  walk?: { admit: (abs: string, rel: string, kind: 'file' | 'dir') => boolean; refuseLinks: boolean };
}

/** The workspace a call works in: the door's, else the process's working directory. */
export const workspaceOf = (ctx: CallContext) => ctx.workspace ?? process.cwd();

/** A remote locator's operations, connected as the workspace config says (remote-ops.ts). */
export async function remoteOps(ctx: CallContext) {
  const ops = await import('./remote-ops.ts');
  ops.configureBackendsFor(workspaceOf(ctx));
  return ops;
}
