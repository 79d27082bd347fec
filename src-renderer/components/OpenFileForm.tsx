import { forwardRef, useEffect, useState, type FormEvent } from 'react';

/**
 * The path box: type a path, or a locator of a value elsewhere (pg://TABLE/KEY/COLUMN,
 * az://CONTAINER/BLOB, s3://BUCKET/KEY), press Enter or Open (Ctrl/Cmd+O focuses it). It
 * shows the open file's path whenever a file is opened another way (recent files,
 * a drop, the Electron menu).
 */
export const OpenFileForm = forwardRef<HTMLInputElement, { currentPath: string; onOpen(path: string): void }>(function OpenFileForm(
  { currentPath, onOpen },
  ref,
) {
  const [path, setPath] = useState(currentPath);
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
        placeholder="/path/to/a/file, pg://TABLE/KEY/COLUMN, az://CONTAINER/BLOB, s3://BUCKET/KEY"
        title="A file's path (or drop a file here), or a locator: pg://TABLE/KEY/COLUMN, az://CONTAINER/BLOB, s3://BUCKET/KEY (Ctrl+O)"
        value={path}
        onChange={(event) => setPath(event.target.value)}
      />
      <button type="submit">Open</button>
    </form>
  );
});
