// Starts the dashboard: a file of its own, as the server's
// Content-Security-Policy allows no inline script.
import init from '/pkg/pqbench_web.js';
init().catch((error) => {
  const message = document.createElement('div');
  message.id = 'error';
  message.setAttribute('role', 'alert');
  message.textContent = `The dashboard failed to load: ${error}`;
  document.body.append(message);
});
