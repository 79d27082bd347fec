import { forwardRef, useEffect, useState, type FormEvent } from 'react';

/**
 * The path box: type a path, press Enter or Open (Ctrl/Cmd+O focuses it). It
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
        placeholder="/path/to/a/file (or drop a file here)"
        title="A file's path (Ctrl+O)"
        value={path}
        onChange={(event) => setPath(event.target.value)}
      />
      <button type="submit">Open</button>
    </form>
  );
});
