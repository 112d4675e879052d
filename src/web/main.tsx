/** The dashboard page's entry (bundled by scripts/web.js into dist/web/app.js). */
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
