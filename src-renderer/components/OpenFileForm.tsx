import { forwardRef, useEffect, useState, type FormEvent } from 'react';
import { useOpenProblemStore } from '../stores/open-problem-store.ts';

/**
 * The path box: type a path, or a locator of a value elsewhere (pg://TABLE/KEY/COLUMN,
 * az://CONTAINER/BLOB, s3://BUCKET/KEY), press Enter or Open (Ctrl/Cmd+O focuses it). It
 * shows the open file's path whenever a file is opened another way (recent files,
 * a drop, the Electron menu). A link opens too: folio://open?path=FILE&lines=A-B,
 * or a link to a page of this app (what Copy link gives). Why the last open
 * opened nothing shows under it until the next open, an edit, Escape or ×.
 */
export const OpenFileForm = forwardRef<HTMLInputElement, { currentPath: string; onOpen(path: string): void }>(function OpenFileForm(
  { currentPath, onOpen },
  ref,
) {
  const [path, setPath] = useState(currentPath);
  const problem = useOpenProblemStore((s) => s.problem);
  useEffect(() => setPath(currentPath), [currentPath]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = path.trim();
    if (trimmed) onOpen(trimmed);
  };
  return (
    <form className="open-file-form" onSubmit={submit}>
      <label htmlFor="path-input">File</label>
      <input
        id="path-input"
        ref={ref}
        data-testid="path-input"
        type="text"
        spellCheck={false}
        autoComplete="off"
        placeholder="/path/to/a/file, pg://TABLE/KEY/COLUMN, az://CONTAINER/BLOB, s3://BUCKET/KEY, a folio:// link"
        title="A file's path (or drop a file here), a locator (pg://TABLE/KEY/COLUMN, az://CONTAINER/BLOB, s3://BUCKET/KEY) or a link from Copy link (Ctrl+O)"
        aria-invalid={problem !== null}
        aria-describedby={problem ? 'open-problem' : undefined}
        value={path}
        onChange={(event) => {
          setPath(event.target.value);
          if (problem) useOpenProblemStore.getState().clear();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && problem) useOpenProblemStore.getState().clear();
        }}
      />
      <button type="submit">Open</button>
      {problem && (
        <p className="open-problem" id="open-problem" role="alert" data-testid="open-problem">
          <span>{problem}</span>
          <button type="button" aria-label="Dismiss" onClick={() => useOpenProblemStore.getState().clear()}>
            ×
          </button>
        </p>
      )}
    </form>
  );
});
