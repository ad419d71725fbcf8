/**
 * The one stylesheet of the pages a person sees (approvals and the host's sign-in pages), served
 * as a file so the pages' CSP allows styles from 'self' only. Contrast ratios are at least 4.5:1;
 * under 34rem the card fills the width and the buttons stack, each a full-width target.
 */
export const PAGE_CSS = `
:root{--ink:#14213d;--muted:#4a5568;--line:#d5dbe5;--bg:#f3f5f9;--card:#fff;--brand:#0b3d91;--focus:#f59e0b;
--danger:#b42318;--danger-bg:#fef3f2;--ok:#05603a;--ok-bg:#ecfdf3;--warn:#8a4b00;--warn-bg:#fffaeb}
*{box-sizing:border-box}
html{font-size:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--brand)}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
.brand{display:flex;align-items:center;gap:.6rem;max-width:40rem;margin:0 auto;padding:1.25rem 1rem .75rem}
.brand .mark{display:inline-grid;place-items:center;width:2rem;height:2rem;border-radius:.5rem;background:var(--brand);color:#fff;font-weight:700}
.brand .name{font-weight:700;letter-spacing:.01em}.brand .product{color:var(--muted)}
.env{margin-left:auto;font-size:.8rem;border:1px solid var(--warn);color:var(--warn);background:var(--warn-bg);border-radius:1rem;padding:.05rem .6rem}
main{max-width:40rem;margin:0 auto 2rem;background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1.5rem 1.5rem 1.25rem;box-shadow:0 1px 2px rgba(20,33,61,.06)}
h1{font-size:1.5rem;line-height:1.25;margin:.25rem 0 .75rem}
h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
.eyebrow{margin:0;font-size:.8rem;font-weight:600;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
.lead{font-size:1.1rem;margin:.5rem 0 1rem}
.notice{border-left:.3rem solid var(--brand);background:#eef4ff;padding:.6rem .9rem;margin:1rem 0;border-radius:.25rem}
.notice.danger{border-color:var(--danger);background:var(--danger-bg)}
.notice.ok{border-color:var(--ok);background:var(--ok-bg)}
.notice.warn{border-color:var(--warn);background:var(--warn-bg)}
.notice p{margin:.2rem 0}
dl.facts{display:grid;grid-template-columns:minmax(7rem,max-content) 1fr;gap:.45rem 1rem;margin:1rem 0}
dl.facts dt{color:var(--muted);font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
.args{border:1px solid var(--line);border-radius:.5rem;padding:.25rem .9rem;margin:.5rem 0}
.args dl{margin:.5rem 0;display:grid;grid-template-columns:minmax(7rem,max-content) 1fr;gap:.35rem 1rem}
.args dt{font-weight:600}.args dd{margin:0;overflow-wrap:anywhere}
.args ul{margin:0;padding-left:1.2rem}
code,.id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
.tag{display:inline-block;font-size:.75rem;font-weight:600;color:var(--muted);border:1px solid var(--line);border-radius:.25rem;padding:0 .3rem;margin-right:.35rem;vertical-align:.1em}
.muted{color:var(--muted)}.small{font-size:.875rem}
ul.scopes{list-style:none;padding:0;margin:.5rem 0;display:grid;gap:.3rem}
ul.scopes li{display:flex;gap:.5rem;align-items:baseline}ul.scopes .tag{min-width:5.2rem;text-align:center;flex:none}
fieldset{border:1px solid var(--line);border-radius:.5rem;margin:1rem 0;padding:.5rem 1rem 1rem}
legend{font-weight:600;padding:0 .3rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=password],select{width:100%;font:inherit;padding:.55rem .65rem;border:1px solid #8a94a6;border-radius:.4rem;background:#fff;color:var(--ink)}
.hint{font-size:.875rem;color:var(--muted);margin:.2rem 0 0}
.error{color:var(--danger);font-weight:600;font-size:.9rem;margin:.25rem 0 0}
[aria-invalid=true]{border-color:var(--danger)!important}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.5rem 0 .5rem}
.btn{font:inherit;font-weight:600;min-height:2.75rem;padding:.6rem 1.4rem;border-radius:.5rem;border:2px solid transparent;cursor:pointer}
.btn.primary{background:var(--brand);color:#fff}
.btn.danger{background:var(--danger);color:#fff}
.btn.secondary{background:#fff;color:var(--ink);border-color:#8a94a6}
.btn:hover{filter:brightness(.93)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.fine{font-size:.875rem;color:var(--muted);margin:.75rem 0 0}
footer{max-width:40rem;margin:0 auto 2rem;padding:0 1rem;font-size:.8rem;color:var(--muted)}
@media (max-width:34rem){
main{border-radius:0;border-left:0;border-right:0;padding:1.25rem 1rem}
dl.facts,.args dl{grid-template-columns:1fr;gap:.1rem}dl.facts dd,.args dd{margin-bottom:.5rem}
.actions{flex-direction:column}.btn{width:100%}
}
@media (prefers-reduced-motion:reduce){*{transition:none!important}}
`;

/**
 * The pages' only script: shows an expiry (`<time data-expiry>`) as a relative time plus the
 * reader's local clock time, keeps it current, and says so when it has passed. Without it the
 * server's text (relative and UTC) stays.
 */
export const PAGE_JS = `'use strict';
(function () {
  var rel = typeof Intl !== 'undefined' && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(document.documentElement.lang || 'en', { numeric: 'auto' }) : null;
  var clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  var day = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  function words(ms) {
    var s = Math.round(ms / 1000), m = Math.round(s / 60), h = Math.round(m / 60);
    if (!rel) return '';
    if (Math.abs(s) < 60) return rel.format(s, 'second');
    if (Math.abs(m) < 90) return rel.format(m, 'minute');
    return rel.format(h, 'hour');
  }
  function paint() {
    var items = document.querySelectorAll('time[data-expiry]');
    for (var i = 0; i < items.length; i++) {
      var el = items[i], at = new Date(el.getAttribute('datetime'));
      if (isNaN(at.getTime())) continue;
      var left = at.getTime() - Date.now();
      var local = (Math.abs(left) < 12 * 3600000 ? clock : day).format(at);
      el.textContent = left > 0 ? words(left) + ' (at ' + local + ', your time)' : 'expired at ' + local + ' (your time)';
    }
  }
  paint();
  setInterval(paint, 15000);
})();
`;
