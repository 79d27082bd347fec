/**
 * The DOM of one inline change's view zone in the main editor (Monaco places it,
 * React does not own it): a toolbar naming the change, with Accept and Reject
 * and their keys, then the removed lines, numbered in the gutter as in the file.
 */
import type { InlineChange } from '../model/proposal-edits.ts';

export interface ZoneLabels {
  /** "p-12 · quote edit, 3 hunks, lines 12–14, 40, 88–90 · hunk 2 of 3 · line 40 · by e2e-agent" */
  title: string;
  acceptKeys: string;
  rejectKeys: string;
  focused: boolean;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function inlineZoneNodesOf(
  change: InlineChange,
  labels: ZoneLabels,
  on: { accept(): void; reject(): void },
): { domNode: HTMLElement; marginDomNode: HTMLElement } {
  const domNode = el('div', `folio-inline-zone${labels.focused ? ' focused' : ''}`);
  domNode.dataset.testid = 'inline-zone';
  domNode.dataset.proposalId = change.proposalId;
  if (change.hunk !== null) domNode.dataset.hunk = String(change.hunk);
  const bar = el('div', 'folio-inline-toolbar');
  bar.append(el('span', 'folio-inline-title', labels.title));
  const button = (text: string, testid: string, title: string, act: () => void) => {
    const b = el('button', `folio-inline-button ${testid}`, text);
    b.type = 'button';
    b.dataset.testid = testid;
    b.title = title;
    // Monaco hides its view zones from assistive tech (aria-hidden), so the buttons stay out of the
    // tab order (axe: aria-hidden-focus); the keys and the panel's buttons do the same, reachably.
    b.tabIndex = -1;
    // Monaco would take the mouse down for a cursor move: the button keeps it.
    b.addEventListener('mousedown', (event) => event.stopPropagation());
    b.addEventListener('click', (event) => {
      event.stopPropagation();
      act();
    });
    return b;
  };
  bar.append(button('Accept', 'inline-accept', `Accept this change (${labels.acceptKeys})`, on.accept));
  bar.append(button('Reject', 'inline-reject', `Reject this change (${labels.rejectKeys})`, on.reject));
  domNode.append(bar);
  const marginDomNode = el('div', 'folio-inline-zone-margin');
  marginDomNode.append(el('div', 'folio-inline-margin-row'));
  if (change.removed.length > 0) {
    const removed = el('div', 'folio-inline-removed');
    removed.dataset.testid = 'inline-removed';
    for (const line of change.removed) {
      removed.append(el('div', 'folio-inline-removed-row', line.text === '' ? '\u00a0' : line.text));
      marginDomNode.append(el('div', 'folio-inline-margin-row removed', String(line.lineNo)));
    }
    domNode.append(removed);
  }
  if (change.truncated) {
    const { oldCount, newCount } = change.truncated;
    domNode.append(el('div', 'folio-inline-truncated', `Too big to show inline: ${oldCount} lines replaced by ${newCount}.`));
    marginDomNode.append(el('div', 'folio-inline-margin-row'));
  }
  return { domNode, marginDomNode };
}
