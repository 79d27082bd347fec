import { useState } from 'react';
import { readCommandOf, viewLinkOf } from '../model/view-link.ts';

/**
 * "Copy link": a link to the selected lines (the visible ones when nothing is
 * selected): in a browser, this page's URL opened on them (pasted in a tab or
 * the path box, it opens them); in Electron, folio://open?… (its registered
 * scheme). And the `folio read` command
 * that prints them, both put on the clipboard and shown in a small popover (the
 * clipboard may be refused, the popover is always there to copy from).
 */
export function CopyLinkButton({ path, startLine, endLine, what }: { path: string | null; startLine: number; endLine: number; what: string }) {
  const [shown, setShown] = useState<{ link: string; command: string; copied: boolean } | null>(null);
  const copy = async () => {
    if (!path) return;
    // Electron's page (folio-app://) opens nowhere else: its links are folio:// ones.
    const link = viewLinkOf(path, startLine, endLine, window.folio ? null : window.location.href);
    const command = readCommandOf(path, startLine, endLine);
    setShown({ link, command, copied: false });
    try {
      await navigator.clipboard.writeText(`${link}\n${command}`);
      setShown({ link, command, copied: true });
    } catch {
      // no clipboard permission: the popover shows both to select by hand
    }
  };
  return (
    <span className="copy-link">
      <button type="button" data-testid="copy-link" disabled={!path} onClick={() => void copy()} title={`Copy a link to ${what}`}>
        Copy link
      </button>
      {shown && (
        <div className="popover" role="dialog" aria-label={`Link to ${what}`} data-testid="copy-link-popover">
          <p className="muted">{shown.copied ? 'Copied to the clipboard:' : 'Copy from here:'}</p>
          <code data-testid="copy-link-url">{shown.link}</code>
          <code data-testid="copy-link-command">{shown.command}</code>
          <button type="button" onClick={() => setShown(null)}>
            Close
          </button>
        </div>
      )}
    </span>
  );
}
