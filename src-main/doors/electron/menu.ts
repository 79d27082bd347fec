/**
 * The application menu: File → Open… (Ctrl/Cmd+O, the native dialog), Open
 * Recent (the api's recent_list, rebuilt after each recent_add), Quit; plus the
 * standard Edit and Window menus, whose roles make copy / paste and window keys
 * work (on macOS only menu items bind them).
 */
import { app, Menu, type MenuItemConstructorOptions } from 'electron';
import type { OpOutput } from '../../api/handle.ts';

/** Menu item ids (Menu.getApplicationMenu().getMenuItemById), for tests and for code that updates items. */
export const MENU_IDS = { open: 'file-open', openRecent: 'file-open-recent' } as const;

export type RecentEntries = OpOutput<'recent_list'>['entries'];

export interface MenuActions {
  /** File → Open…: show the dialog and open what was chosen. */
  showOpenDialog(): void;
  open(path: string): void;
}

export function recentSubmenuOf(entries: RecentEntries, actions: Pick<MenuActions, 'open'>): MenuItemConstructorOptions[] {
  if (entries.length === 0) return [{ label: 'No recent files', enabled: false }];
  return entries.map((e) => ({
    label: e.missing ? `${e.path} (missing)` : e.path,
    enabled: !e.missing,
    click: () => actions.open(e.path),
  }));
}

export function menuTemplateOf(entries: RecentEntries, actions: MenuActions, platform: NodeJS.Platform = process.platform): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin';
  return [
    ...(isMac ? [{ role: 'appMenu' } satisfies MenuItemConstructorOptions] : []),
    {
      label: '&File',
      submenu: [
        { id: MENU_IDS.open, label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => actions.showOpenDialog() },
        { id: MENU_IDS.openRecent, label: 'Open Recent', submenu: recentSubmenuOf(entries, actions) },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'windowMenu' },
  ];
}

export function setAppMenu(entries: RecentEntries, actions: MenuActions): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplateOf(entries, actions)));
}

/** The OS's own recent documents (macOS Dock, Windows jump list), alongside ours. */
export function addOsRecentDocument(path: string): void {
  if (process.platform === 'darwin' || process.platform === 'win32') app.addRecentDocument(path);
}
