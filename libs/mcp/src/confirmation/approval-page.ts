import { argumentListHtml } from '../pages/argument-list.js';
import { escapeHtml as escape, type PageBrand, renderPage } from '../pages/page-layout.js';
import { expiryHtml } from '../pages/time-text.js';
import type { ApprovalRecord } from './approvals.service.js';

/** The host's identity and where the assets are: what every approval page is framed with. */
export interface PageFrame {
  readonly brand?: PageBrand;
  readonly assets: string;
}

const page = (frame: PageFrame, title: string, body: string): string => renderPage({ ...frame, title, body });

function clientHtml(record: ApprovalRecord): string {
  const id =
    record.clientId && record.clientId !== record.clientName
      ? ` <span class="muted small">(client id <code>${escape(record.clientId)}</code>)</span>`
      : '';
  return `<strong>${escape(record.clientName)}</strong>${id}`;
}

function requesterHtml(record: ApprovalRecord): string {
  const parts = [record.organisation, record.role].filter((p): p is string => Boolean(p)).map(escape);
  return `${escape(record.requester)}${parts.length ? ` <span class="muted">· ${parts.join(' · ')}</span>` : ''}`;
}

function undoHtml(record: ApprovalRecord): string {
  const note = record.undoNote ? `<p>${escape(record.undoNote)}</p>` : '';
  if (record.undoable === false)
    return `<div class="notice danger" id="undo" role="note"><p><strong>This cannot be undone.</strong></p>${note}</div>`;
  if (record.undoable === true)
    return `<div class="notice" id="undo" role="note"><p><strong>This can be undone.</strong></p>${note}</div>`;
  return note ? `<div class="notice" id="undo" role="note">${note}</div>` : '';
}

/**
 * The approval page: which client asks, on whose behalf, to do what (the host's plain-words
 * sentence), whether it can be undone, until when, the arguments in words — and Continue (styled
 * as dangerous unless the host says the action can be undone) or Cancel, posted with the anti-CSRF token.
 */
export function approvalPage(frame: PageFrame, record: ApprovalRecord, action: string): string {
  const danger = record.undoable !== true;
  return page(
    frame,
    `Approve: ${record.title}`,
    `<p class="eyebrow">Approval needed</p>
<h1>${escape(record.title)}?</h1>
<p class="lead">${escape(record.message)}</p>
${undoHtml(record)}
<dl class="facts">
<dt>Asked by</dt><dd>${clientHtml(record)}</dd>
<dt>On behalf of</dt><dd>${requesterHtml(record)}</dd>
<dt>Action</dt><dd>${escape(record.title)} <span class="muted small">(<code>${escape(record.tool)}</code>)</span></dd>
<dt>Link expires</dt><dd>${expiryHtml(record.expiresAt)}</dd>
</dl>
<h2 id="details">Details</h2>
${argumentListHtml(record.summary)}
<form method="post" action="${escape(action)}" aria-labelledby="details">
<input type="hidden" name="csrf" value="${escape(record.csrf)}">
<div class="actions">
<button class="btn ${danger ? 'danger' : 'primary'}" type="submit" name="decision" value="approve"${record.undoable === false ? ' aria-describedby="undo"' : ''}>Continue</button>
<button class="btn secondary" type="submit" name="decision" value="reject">Cancel</button>
</div>
</form>
<p class="fine">Nothing runs until you choose Continue, and then it runs once. Opening this page changes nothing.</p>`,
  );
}

export function approvedPage(frame: PageFrame, record: ApprovalRecord): string {
  return page(
    frame,
    'Approved',
    `<p class="eyebrow">Done</p><h1>Approved</h1>
<div class="notice ok" role="status"><p>${escape(record.title)} is approved, once.</p></div>
<p>Go back to ${clientHtml(record)}: it can now run “${escape(record.title)}” once, with exactly these details. You can close this page.</p>`,
  );
}

export function canceledPage(frame: PageFrame, record: ApprovalRecord): string {
  return page(
    frame,
    'Canceled',
    `<p class="eyebrow">Done</p><h1>Canceled</h1>
<div class="notice" role="status"><p>“${escape(record.title)}” will not run.</p></div>
<p>${clientHtml(record)} will be told you chose Cancel. You can close this page.</p>`,
  );
}

export function alreadyDecidedPage(frame: PageFrame, status: string): string {
  const what = status === 'rejected' ? 'canceled' : 'approved';
  return page(
    frame,
    'Already decided',
    `<p class="eyebrow">Nothing to do</p><h1>Already decided</h1><p>This request was already ${what}. Nothing changed now.</p>`,
  );
}

export function expiredPage(frame: PageFrame, record: ApprovalRecord): string {
  return page(
    frame,
    'Link expired',
    `<p class="eyebrow">Nothing to do</p><h1>This link has expired</h1>
<div class="notice warn" role="status"><p>“${escape(record.title)}” was not approved and will not run. The link ${expiryHtml(record.expiresAt)}.</p></div>
<p>If you still want it, ask ${escape(record.clientName)} to try again: it will get a new link.</p>`,
  );
}

export function notValidPage(frame: PageFrame): string {
  return page(
    frame,
    'Link not valid',
    '<p class="eyebrow">Nothing to do</p><h1>This link is not valid</h1><p>It may be incomplete (copy the whole link), or so old that it is gone. Nothing was changed. Ask your assistant to try again.</p>',
  );
}

export function signInFirstPage(frame: PageFrame): string {
  return page(frame, 'Sign in', '<h1>Sign in first</h1><p>Open this link in a browser where you are signed in.</p>');
}

export function refusedPage(frame: PageFrame): string {
  return page(
    frame,
    'Refused',
    '<h1>Refused</h1><p>This form did not come from the approval page, so nothing was changed.</p>',
  );
}
