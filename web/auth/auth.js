// Sign-in pages of the Tern launcher. Loaded as a file because the CSP forbids inline script.

async function postJson(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  const payload = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, payload };
}

function showMessage(text) {
  const message = document.getElementById('message');
  if (!message) return;
  message.textContent = text;
  message.hidden = false;
}

function fieldsOf(form) {
  return Object.fromEntries(Array.from(form.querySelectorAll('input')).map((input) => [input.name, input.value]));
}

function wireForm(form) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button');
    button.disabled = true;
    try {
      const result = await postJson(form.dataset.endpoint, fieldsOf(form));
      if (result.ok) return window.location.assign('/');
      showMessage(result.payload?.error?.message ?? `request failed (HTTP ${result.status})`);
    } catch {
      showMessage('the launcher did not answer; is it still running?');
    } finally {
      button.disabled = false;
    }
  });
}

async function showStorageNote() {
  const note = document.getElementById('storage-note');
  if (!note) return;
  const response = await fetch('/api/auth/status', { credentials: 'same-origin' });
  const status = await response.json();
  note.hidden = status.storage !== 'launcher-config.json';
}

// The setup link tern-launcher prints carries the one-time token; it is taken into the form and out of the address
// bar (and so out of the history).
function takeSetupToken() {
  const input = document.getElementById('setup_token');
  const token = new URLSearchParams(window.location.search).get('setup_token');
  if (!input || !token) return;
  input.value = token;
  document.getElementById('setup-token-field').hidden = true;
  window.history.replaceState(null, '', window.location.pathname);
}

function wireLogout(button) {
  button.addEventListener('click', async () => {
    await postJson('/api/auth/logout', {});
    window.location.assign('/launcher-login');
  });
}

takeSetupToken();
document.querySelectorAll('form[data-endpoint]').forEach(wireForm);
const logout = document.getElementById('logout');
if (logout) wireLogout(logout);
showStorageNote().catch(() => {});
