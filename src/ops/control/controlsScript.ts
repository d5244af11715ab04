/**
 * The dashboard's controls (served as `/control/controls.js`, allowed by the page's `script-src
 * 'self'`): reads `/control/session` (the CSRF token, whether commands are on, the symbols), then
 * shows one bar of buttons; each asks for confirmation and POSTs the command with the token in a
 * header. With `ops.readOnly`, or without access, it shows nothing. Text from the bot is set as text.
 */
export const CONTROLS_SCRIPT = `
'use strict';
(function () {
  var LABELS = { pause: 'Pause', resume: 'Resume', 'cancel-all': 'Cancel all orders', flatten: 'Flatten', reload: 'Reload config', stop: 'Stop bot' };
  var SCOPED = { pause: true, resume: true, flatten: true };
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  fetch('control/session', { credentials: 'same-origin' }).then(function (r) {
    return r.ok ? r.json() : null;
  }).then(function (session) {
    if (!session || session.readOnly) return;
    var bar = el('section', { id: 'controls', 'aria-label': 'controls' });
    var pick = el('select', { id: 'control-instrument', 'aria-label': 'instrument' });
    pick.appendChild(el('option', { value: '' }, 'every instrument'));
    session.instruments.forEach(function (s) { pick.appendChild(el('option', { value: s }, s)); });
    bar.appendChild(pick);
    var result = el('output', { id: 'control-result' });
    session.commands.forEach(function (c) {
      var b = el('button', { type: 'button', 'data-command': c }, LABELS[c] || c);
      b.addEventListener('click', function () {
        var instrument = SCOPED[c] && pick.value ? pick.value : undefined;
        var what = (LABELS[c] || c) + (SCOPED[c] ? ' (' + (instrument || 'every instrument') + ')' : '');
        if (!window.confirm(what + '?')) return;
        b.disabled = true;
        fetch('control/' + c, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-perpbot-csrf': session.csrf, 'x-perpbot-client': 'dashboard' },
          body: JSON.stringify(instrument ? { instrument: instrument } : {})
        }).then(function (r) { return r.json(); }).then(function (reply) {
          var lines = [reply.message || reply.error || 'no answer'].concat(reply.lines || []);
          result.textContent = lines.join(' | ');
          result.setAttribute('data-ok', String(reply.ok === true));
        }).catch(function (e) {
          result.textContent = 'failed: ' + e;
          result.setAttribute('data-ok', 'false');
        }).then(function () { b.disabled = false; });
      });
      bar.appendChild(b);
    });
    bar.appendChild(result);
    var header = document.querySelector('header');
    if (header && header.parentNode) header.parentNode.insertBefore(bar, header.nextSibling);
    else document.body.insertBefore(bar, document.body.firstChild);
  }).catch(function () { /* no controls without the session */ });
})();
`
