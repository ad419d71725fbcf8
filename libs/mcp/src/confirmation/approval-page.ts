import type { ApprovalRecord } from './approvals.service.js';

export const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{font-weight:600}' +
  'pre{background:#f4f4f4;padding:.75rem;overflow:auto;white-space:pre-wrap}' +
  'form{display:inline-block;margin-right:1rem}button{font-size:1rem;padding:.5rem 1.25rem;cursor:pointer}' +
  '.go{background:#0b6;color:#fff;border:0}.stop{background:#fff;border:1px solid #999}';

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The approval page: who asks, through which client, to do what, until when — and two buttons. */
export function approvalPage(record: ApprovalRecord, action: string): string {
  return page(
    `Approve ${record.title}?`,
    `<h1>Approve “${escape(record.title)}”?</h1>
<p><strong>${escape(record.clientName)}</strong> asks to run a tool that changes things.</p>
<p>${escape(record.message)}</p>
<dl><dt>Requested by</dt><dd>${escape(record.requester)}</dd>
<dt>Client</dt><dd>${escape(record.clientName)}</dd>
<dt>Tool</dt><dd>${escape(record.title)} <code>${escape(record.tool)}</code></dd>
<dt>Expires</dt><dd>${escape(new Date(record.expiresAt).toISOString())}</dd></dl>
<h2>Arguments</h2><pre>${escape(JSON.stringify(record.summary, null, 2))}</pre>
<form method="post" action="${escape(action)}"><input type="hidden" name="csrf" value="${escape(record.csrf)}"><input type="hidden" name="decision" value="approve"><button class="go" type="submit">Continue</button></form>
<form method="post" action="${escape(action)}"><input type="hidden" name="csrf" value="${escape(record.csrf)}"><input type="hidden" name="decision" value="reject"><button class="stop" type="submit">Cancel</button></form>
<p>Nothing runs until you choose Continue, and it runs once.</p>`,
  );
}
