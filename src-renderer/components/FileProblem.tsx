import type { FileInfo } from '../../src-main/api/schemas.ts';
import type { ErrorPayload } from '../transport.ts';
import { ProposedFile, useFileChangeOf } from './ChangeBanner.tsx';

/** Why no lines are shown: the api error, an empty or binary file, still reading, or no file open. */
export function FileProblem({ path, info, error, loading }: { path: string | null; info: FileInfo | null; error: ErrorPayload | null; loading: boolean }) {
  const fileChange = useFileChangeOf();
  // A create's file is not there until it is approved: its proposed lines stand in for it.
  if (error?.code === 'not_found' && fileChange?.change.kind === 'create') return <ProposedFile p={fileChange} />;
  if (error) return <FileError path={path} error={error} />;
  return (
    <section className="file-problem empty" data-testid="file-info-empty">
      <p>{emptyMessageOf(path, info, loading)}</p>
    </section>
  );
}

function FileError({ path, error }: { path: string | null; error: ErrorPayload }) {
  return (
    <section className="file-problem error" data-testid="file-info-error" role="alert">
      <h2>Cannot open {path}</h2>
      <p>
        <code>{error.code}</code> {error.message}
      </p>
    </section>
  );
}

function emptyMessageOf(path: string | null, info: FileInfo | null, loading: boolean): string {
  if (info?.binary.is_binary) return `${info.path} is binary (${info.binary.type ?? info.binary.reason}): not shown as text.`;
  if (info && info.lines === 0) return `${info.path} is empty.`;
  if (loading || info) return `Reading ${path ?? ''}…`;
  return 'No file open. Type a path above (Ctrl+O), pick one under Recent, or drop a file here.';
}
