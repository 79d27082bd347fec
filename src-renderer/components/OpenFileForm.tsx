import { useState, type FormEvent } from 'react';

/** The path box: type a path, press Enter or Open. */
export function OpenFileForm({ initialPath, onOpen }: { initialPath: string; onOpen(path: string): void }) {
  const [path, setPath] = useState(initialPath);
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
        data-testid="path-input"
        type="text"
        spellCheck={false}
        autoComplete="off"
        placeholder="/path/to/a/file"
        value={path}
        onChange={(event) => setPath(event.target.value)}
      />
      <button type="submit">Open</button>
    </form>
  );
}
