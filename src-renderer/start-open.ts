/**
 * Opens the launch file (`?file=`) as soon as this module is evaluated. main.tsx
 * imports it first, so the first read and file_info leave before React and the
 * rest of the bundle are evaluated, and the first lines paint as soon as React
 * has mounted.
 */
import { launchParamsOf } from './launch-params.ts';
import { useViewerStore } from './stores/viewer-store.ts';

performance.mark('folio:start-open');
const { file } = launchParamsOf(window.location.search);
if (file) void useViewerStore.getState().openFile(file);
