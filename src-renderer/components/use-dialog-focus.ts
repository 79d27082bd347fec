/**
 * A modal's focus, as WAI-ARIA APG "Dialog (Modal)" asks: focus moves into it on
 * open, Tab and Shift+Tab cycle inside it, Escape closes it, and focus returns to
 * what had it before (the opener) when it closes.
 */
import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The dialog's key handler (put it on the dialog's root); `first`: what takes focus on open (else the first focusable). */
export function useDialogFocus(
  rootRef: RefObject<HTMLElement | null>,
  onClose: () => void,
  first?: RefObject<HTMLElement | null>,
): (event: KeyboardEvent<HTMLElement>) => void {
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = rootRef.current;
    (first?.current ?? root?.querySelector<HTMLElement>(FOCUSABLE) ?? root)?.focus();
    return () => {
      // Back to the opener if it is still there (a decision may have removed it).
      if (opener && opener.isConnected) opener.focus();
    };
    // Once per opening: later renders must not move the focus.
  }, []);
  return (event) => {
    // An editor inside (Monaco) took the key for itself: a Tab it indents with, an Escape that closed its widget.
    if (event.defaultPrevented) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onCloseRef.current();
      return;
    }
    if (event.key !== 'Tab') return;
    const root = rootRef.current;
    if (!root) return;
    const items = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((e) => e.offsetParent !== null || e === document.activeElement);
    if (items.length === 0) return;
    const firstItem = items[0]!;
    const lastItem = items[items.length - 1]!;
    const active = document.activeElement;
    const inside = active instanceof Node && root.contains(active);
    if (event.shiftKey && (active === firstItem || !inside)) {
      event.preventDefault();
      lastItem.focus();
    } else if (!event.shiftKey && (active === lastItem || !inside)) {
      event.preventDefault();
      firstItem.focus();
    }
  };
}
