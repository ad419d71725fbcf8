import { createHash } from 'node:crypto';
import { EXECUTION_APP_SCRIPT } from './app-script.js';

/**
 * `ui://kadu/execution`: one self-contained document (no external origin: its script and style
 * are inline, allowed by hash in its own CSP, and the resource declares no connect or resource
 * domains). Kobana/Kadu identity like the other pages (src/mcp/kadu-pages.ts), phone width first.
 */
const STYLE = `
:root{--ink:#14213d;--muted:#4a5568;--line:#d5dbe5;--bg:#f3f5f9;--card:#fff;--brand:#0b3d91;--focus:#b45309;
--danger:#b42318;--danger-bg:#fef3f2;--ok:#05603a;--ok-bg:#ecfdf3;--warn:#8a4b00;--warn-bg:#fffaeb}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{display:flex;align-items:center;gap:.6rem;max-width:40rem;margin:0 auto;padding:1rem 1rem .5rem}
.mark{display:inline-grid;place-items:center;width:2rem;height:2rem;border-radius:.5rem;background:var(--brand);color:#fff;font-weight:700}
.name{font-weight:700}.product{color:var(--muted)}
main{max-width:40rem;margin:0 auto;padding:0 1rem 1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1rem;margin:0 0 1rem}
h1{font-size:1.25rem;margin:0 0 .25rem}h2{font-size:1rem;margin:0 0 .5rem}
.id{font-size:.8rem;color:var(--muted);overflow-wrap:anywhere;margin:0 0 .75rem}
.status{display:inline-block;font-weight:700;border-radius:1rem;padding:.1rem .7rem;border:1px solid var(--line)}
.s-running,.s-queued{color:var(--brand);background:#eef4ff}.s-succeeded{color:var(--ok);background:var(--ok-bg)}
.s-failed{color:var(--danger);background:var(--danger-bg)}.s-canceled{color:var(--muted);background:var(--bg)}
.s-awaiting_input{color:var(--warn);background:var(--warn-bg)}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;margin:.75rem 0 0}dt{color:var(--muted);font-weight:600}dd{margin:0}
meter{width:100%;height:.9rem}
ol,ul{margin:0;padding-left:1.25rem}li{margin:.2rem 0;overflow-wrap:anywhere}
.tag{display:inline-block;font-size:.75rem;font-weight:600;color:var(--muted);border:1px solid var(--line);border-radius:.25rem;padding:0 .3rem;margin-right:.4rem}
.notice{border-left:.3rem solid var(--brand);background:#eef4ff;padding:.6rem .9rem;margin:0 0 1rem;border-radius:.25rem}
.notice.danger{border-color:var(--danger);background:var(--danger-bg)}.notice.ok{border-color:var(--ok);background:var(--ok-bg)}
.notice.warn{border-color:var(--warn);background:var(--warn-bg)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.5rem 1rem;border-radius:.5rem;border:1px solid var(--brand);background:#fff;color:var(--brand);cursor:pointer}
button.danger{border-color:var(--danger);color:#fff;background:var(--danger)}
button.link{border:0;padding:.25rem 0;min-height:2.75rem;text-decoration:underline}
button:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
button[disabled]{opacity:.6;cursor:not-allowed}
.muted{color:var(--muted)}
`;

const BODY = `
<header><span class="mark" aria-hidden="true">K</span><span class="name">Kobana</span><span class="product">Kadu</span></header>
<main>
  <div id="notice" class="notice" role="status" aria-live="polite" hidden></div>
  <section class="card" aria-labelledby="title">
    <h1 id="title">Execution</h1>
    <p class="id" id="id">Waiting for the execution…</p>
    <p aria-live="polite"><span class="muted">Status:</span> <span id="status" class="status">—</span></p>
    <dl>
      <dt>Cost</dt><dd><span id="cost">—</span> <span class="muted">(spent of the cap)</span></dd>
    </dl>
    <meter id="meter" min="0" max="1" value="0" aria-label="Cost spent against the cap"></meter>
    <div id="error" class="notice danger" hidden></div>
    <div class="actions">
      <button type="button" id="cancel" class="danger" hidden>Cancel execution</button>
      <button type="button" id="approve" hidden>Open the approval page</button>
    </div>
  </section>
  <section id="question" class="card" aria-labelledby="question-title" hidden>
    <h2 id="question-title">Input requested</h2>
    <p id="question-text"></p>
    <ul id="choices"></ul>
    <p class="muted">Answer in the chat: the model continues the execution with kadu_executions_continue.</p>
  </section>
  <section class="card" aria-labelledby="steps-title">
    <h2 id="steps-title">Steps</h2>
    <p id="no-steps" class="muted">No step recorded yet.</p>
    <ol id="steps" aria-live="polite"></ol>
  </section>
  <section id="outputs" class="card" aria-labelledby="outputs-title" hidden>
    <h2 id="outputs-title">Output files</h2>
    <ul id="files"></ul>
  </section>
</main>`;

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Nothing may load or connect: only this document's own inline script and style, by hash. */
export const EXECUTION_APP_CSP = [
  "default-src 'none'",
  `script-src ${hash(EXECUTION_APP_SCRIPT)}`,
  `style-src ${hash(STYLE)}`,
  "img-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export const EXECUTION_APP_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${EXECUTION_APP_CSP}">
<title>Kadu execution</title>
<style>${STYLE}</style>
</head>
<body>${BODY}
<script>${EXECUTION_APP_SCRIPT}</script>
</body>
</html>`;
