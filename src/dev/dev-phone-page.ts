import { html } from '../pages/html.js';
import { renderDocument, type RenderedDocument } from '../pages/page-document.js';

/** The number the dev phone and `npm run chat` text as unless told otherwise. */
export const DEFAULT_DEV_PHONE = '+14155550123';

/** The phone's frame, on top of the shared stylesheet: full screen on a phone, a handset on a desk. */
const PHONE_STYLE = `body{display:flex;justify-content:center;min-height:100vh}
.phone{display:flex;flex-direction:column;width:100%;max-width:26rem;height:100vh;height:100dvh;background:var(--card)}
@media (min-width:40rem){body{align-items:center}.phone{height:min(52rem,calc(100vh - 2rem));border:1px solid var(--line);border-radius:2rem;overflow:hidden;box-shadow:0 10px 40px rgba(0,0,0,.15)}}
.phone header{padding:.75rem 1rem;border-bottom:1px solid var(--line)}
.phone header h1{font-size:1.1rem;margin:0}
.phone header label{display:flex;align-items:center;gap:.5rem;margin:.5rem 0 0;font-weight:400;font-size:.875rem}
.phone header input{flex:1;padding:.35rem .5rem}
#status{margin:.25rem 0 0;font-size:.8rem;color:var(--muted)}
#messages{flex:1;overflow-y:auto;list-style:none;margin:0;padding:1rem;display:flex;flex-direction:column;gap:.5rem}
#messages li{max-width:85%;padding:.5rem .75rem;border-radius:1.1rem;white-space:pre-wrap}
#messages .in{align-self:flex-start;background:var(--bg);border:1px solid var(--line)}
#messages .out{align-self:flex-end;background:var(--accent);color:var(--accent-fg)}
#messages .out a{color:inherit}
#messages .error{align-self:center;color:var(--bad);font-size:.875rem}
#composer{display:flex;gap:.5rem;padding:.75rem;border-top:1px solid var(--line)}
#composer input{flex:1;border-radius:1.5rem}
#composer .button{margin:0;border-radius:1.5rem}
#composer .icon{padding:.5rem .7rem}
#attachments{display:flex;flex-wrap:wrap;gap:.25rem;padding:0 .75rem;list-style:none;margin:0;font-size:.8rem}
#attachments:empty{display:none}
#attachments li{background:var(--bg);border:1px solid var(--line);border-radius:1rem;padding:.15rem .6rem;margin-top:.5rem}
#recording{color:var(--bad)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}`;

/**
 * The phone's behaviour. Replies arrive as server-sent events for the chosen number (the
 * console transport feeds them, reminders included); a message is posted to Herald, which
 * passes it through the real webhook. Text is always inserted as text nodes; only http(s)
 * URLs become links, opening in a new tab. Attached files (a photo, a PDF) and voice notes
 * recorded in the browser are uploaded to /dev/phone/media first and sent as the message's
 * media, which Herald downloads the way it downloads Twilio's.
 */
const PHONE_SCRIPT = `(() => {
  const form = document.getElementById('composer');
  const input = document.getElementById('message');
  const from = document.getElementById('from');
  const log = document.getElementById('messages');
  const status = document.getElementById('status');
  const picker = document.getElementById('file');
  const chips = document.getElementById('attachments');
  const mic = document.getElementById('record');
  let pending = [];
  let recorder;
  let source;
  try { const saved = localStorage.getItem('herald-dev-phone'); if (saved) from.value = saved; } catch {}
  function bubble(kind, text) {
    const item = document.createElement('li');
    item.className = kind;
    for (const part of text.split(/(https?:\\/\\/[^\\s<>"]+)/g)) {
      if (/^https?:\\/\\//.test(part)) {
        const link = document.createElement('a');
        link.href = part; link.textContent = part; link.target = '_blank'; link.rel = 'noopener noreferrer';
        item.append(link);
      } else if (part) item.append(document.createTextNode(part));
    }
    log.append(item);
    log.scrollTop = log.scrollHeight;
  }
  function connect() {
    if (source) source.close();
    form.dataset.ready = 'false';
    status.textContent = 'Connecting…';
    source = new EventSource('/dev/phone/events?from=' + encodeURIComponent(from.value.trim()));
    source.addEventListener('ready', () => { form.dataset.ready = 'true'; status.textContent = "Connected: Herald's replies appear here."; });
    source.addEventListener('message', (event) => bubble('in', JSON.parse(event.data).body));
    source.onerror = () => { form.dataset.ready = 'false'; status.textContent = 'Not connected: is Herald running, and is the number in +country form?'; };
  }
  from.addEventListener('change', () => { try { localStorage.setItem('herald-dev-phone', from.value.trim()); } catch {} connect(); });
  function showAttachments() {
    chips.replaceChildren(...pending.map((file) => { const chip = document.createElement('li'); chip.textContent = file.name; return chip; }));
  }
  async function upload(file) {
    const response = await fetch('/dev/phone/media', { method: 'POST', headers: { 'content-type': file.type || 'application/octet-stream' }, body: file });
    if (!response.ok) throw new Error(await response.text());
    return (await response.json()).id;
  }
  async function send(body, files) {
    bubble('out', [body, ...files.map((file) => '[' + file.name + ']')].filter(Boolean).join('\\n'));
    let media;
    try { media = await Promise.all(files.map(upload)); } catch (error) { bubble('error', 'Not sent: ' + error.message); return; }
    const response = await fetch('/dev/phone/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: from.value.trim(), body, media }) }).catch(() => undefined);
    if (!response) bubble('error', 'Not sent: Herald is not reachable.');
    else if (!response.ok) bubble('error', 'Not sent: ' + (await response.text()));
  }
  picker.addEventListener('change', () => { pending = pending.concat([...picker.files]).slice(0, 10); picker.value = ''; showAttachments(); });
  mic.addEventListener('click', async () => {
    if (recorder && recorder.state === 'recording') { recorder.stop(); return; }
    let stream;
    try { stream = await navigator.mediaDevices.getUserMedia({ audio: true }); } catch { bubble('error', 'The browser did not allow the microphone.'); return; }
    const chunks = [];
    recorder = new MediaRecorder(stream);
    recorder.addEventListener('dataavailable', (event) => chunks.push(event.data));
    recorder.addEventListener('stop', () => {
      stream.getTracks().forEach((track) => track.stop());
      mic.textContent = '🎤';
      const type = (recorder.mimeType || 'audio/webm').split(';')[0];
      const note = new File(chunks, 'voice-note.' + (type.split('/')[1] || 'webm'), { type });
      send('', [note]);
    });
    recorder.start();
    mic.textContent = '■ Stop';
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = input.value.trim();
    const files = pending;
    if (!body && files.length === 0) return;
    input.value = '';
    pending = [];
    showAttachments();
    await send(body, files);
  });
  connect();
})();`;

/** The dev phone: a phone-shaped chat with Herald, as the number in the header. */
export function renderDevPhone(defaultPhone: string = DEFAULT_DEV_PHONE): RenderedDocument {
  const body = html`<div class="phone"><header><h1>Herald</h1>
<label for="from">Texting as <input id="from" type="tel" autocomplete="off" value="${defaultPhone}"></label>
<p id="status" role="status">Connecting…</p></header>
<ol id="messages" aria-live="polite" aria-label="Conversation"></ol>
<ul id="attachments" aria-label="Attachments to send"></ul>
<form id="composer" data-ready="false"><label class="button icon" for="file" title="Attach a photo or PDF">📎<span class="visually-hidden">Attach a photo or PDF</span></label><input id="file" class="visually-hidden" type="file" multiple accept="image/*,application/pdf,audio/*"><button id="record" class="button icon" type="button" title="Record a voice note" aria-label="Record a voice note">🎤</button><input id="message" autocomplete="off" placeholder="Text Herald" aria-label="Message" maxlength="1600"><button class="button" type="submit">Send</button></form></div>`;
  return renderDocument({ title: 'Herald — dev phone', body, styles: [PHONE_STYLE], scripts: [PHONE_SCRIPT] });
}
