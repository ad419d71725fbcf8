import { escapeHtml as e, expiryHtml, type PageBrand, renderPage } from '@kobana/nest-mcp';
import { ENTRY_TTL_MINUTES, type EntryLink, type EntryLinkState } from './secret-entry-links.js';

export interface Frame {
  readonly brand?: PageBrand;
  readonly assets: string;
}

export const VALUE_MAX_LENGTH = 10_000;

function organisationHtml(link: EntryLink): string {
  const { name, slug } = link.organisation;
  return name === slug ? e(name) : `${e(name)} <span class="muted small">(${e(slug)})</span>`;
}

function requesterHtml(link: EntryLink): string {
  if (!link.requester) return '<span class="muted">a member of this organisation</span>';
  const { name, email } = link.requester;
  return name === email ? e(email) : `${e(name)} <span class="muted">(${e(email)})</span>`;
}

/**
 * The page where a person types a secret's value: which secret, of which organisation, asked by
 * whom, whether it replaces a value, until when the link works — and one password field. The value
 * never comes back in any page (not even after a refusal).
 */
export function entryPage(frame: Frame, link: EntryLink, action: string, problem?: string): string {
  const { name, description, version } = link.secret;
  const describedBy = `value-hint${problem ? ' value-error' : ''}`;
  const body = `<p class="eyebrow">Secret value</p>
<h1>${version > 0 ? 'Set a new value for' : 'Set the value of'} <code>${e(name)}</code></h1>
<p class="lead">Type it here, not in the chat: it is stored encrypted and never shown again — not to you, not to the assistant.</p>
<dl class="facts">
<dt>Secret</dt><dd><code>${e(name)}</code>${description ? `<br><span class="small">${e(description)}</span>` : ''}</dd>
<dt>Organisation</dt><dd>${organisationHtml(link)}</dd>
<dt>Asked by</dt><dd>${requesterHtml(link)}</dd>
<dt>Current value</dt><dd>${version > 0 ? `version ${version}; this replaces it` : '<span class="muted">none yet</span>'}</dd>
<dt>Link expires</dt><dd>${expiryHtml(link.expiresAt.getTime())}</dd>
</dl>
${problem ? '<div class="notice danger" role="alert"><p><strong>Nothing was saved.</strong> Check the field below.</p></div>' : ''}
<form method="post" action="${e(action)}">
<label for="value">New value</label>
<input type="password" id="value" name="value" required maxlength="${VALUE_MAX_LENGTH}" autocomplete="new-password" spellcheck="false" autocapitalize="off" aria-describedby="${describedBy}"${problem ? ' aria-invalid="true"' : ''}>
<p class="hint" id="value-hint">Up to ${VALUE_MAX_LENGTH.toLocaleString('en')} characters; pasting is fine.</p>${problem ? `<p class="error" id="value-error">${e(problem)}</p>` : ''}
<div class="actions"><button class="btn primary" type="submit">Save</button></div>
</form>
<p class="fine">This link works once, and only until a newer link for this secret is made. Opening it changes nothing.</p>`;
  return renderPage({ ...frame, title: `Set ${name}`, body });
}

export function savedPage(frame: Frame, name: string, version: number): string {
  return renderPage({
    ...frame,
    title: 'Saved',
    body: `<p class="eyebrow">Done</p><h1>Saved</h1>
<div class="notice ok" role="status"><p><code>${e(name)}</code> now has a new value (version ${version}).</p></div>
<p>Tasks that use it read the new value from now on. It is stored encrypted and is never shown again. You can close this page.</p>`,
  });
}

const PROBLEMS: Record<Exclude<EntryLinkState, 'live'>, { status: number; heading: string; text: string }> = {
  used: {
    status: 409,
    heading: 'This link was already used',
    text: 'A value was saved through it. Nothing changed now. To change the value again, ask for a new link.',
  },
  replaced: {
    status: 410,
    heading: 'This link was replaced',
    text: 'A newer link was made for this secret, and only the newest one works. Nothing was changed. Use the newest link, or ask for a new one.',
  },
  expired: {
    status: 410,
    heading: 'This link has expired',
    text: `Nothing was changed. Ask for a new link: it works for ${ENTRY_TTL_MINUTES} minutes.`,
  },
  deleted: { status: 410, heading: 'This secret was deleted', text: 'Nothing was changed.' },
};

const NOT_VALID = {
  status: 404,
  heading: 'This link is not valid',
  text: 'It may be incomplete (copy the whole link). Nothing was changed. Ask for a new link.',
};

/** A link that cannot set a value (unknown, used, replaced, expired, or its secret deleted): why, and what to do. */
export function linkProblemPage(
  frame: Frame,
  state: Exclude<EntryLinkState, 'live'> | 'unknown',
): { status: number; html: string } {
  const { status, heading, text } = state === 'unknown' ? NOT_VALID : PROBLEMS[state];
  return {
    status,
    html: renderPage({
      ...frame,
      title: heading,
      body: `<p class="eyebrow">Nothing to do</p><h1>${e(heading)}</h1><p>${e(text)}</p>`,
    }),
  };
}
