/**
 * The renderer's entry, kept small. It starts opening the launch file first (see
 * start-open.ts), then loads and mounts the app. When the page came with the file's
 * first lines already in it (folio serve's first window), the app is loaded only
 * after the browser has painted them: evaluating React and the app first would hold
 * that paint back by a couple of hundred milliseconds.
 */
import './start-open.ts';
import './styles.css';

const mount = () => import('./mount.tsx');
if (document.getElementById('folio-first-window')) {
  requestAnimationFrame(() => setTimeout(() => void mount(), 0));
} else {
  void mount();
}
