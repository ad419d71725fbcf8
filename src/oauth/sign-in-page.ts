import { escapeHtml as e, type PageBrand, renderPage } from '@kobana/nest-mcp';
import { ROLES } from '../auth/scopes.js';
import type { DevAccount } from './dev-account.js';
import { minimumRole, SCOPE_TEXT } from './scope-text.js';

export interface SignInView {
  readonly action: string;
  readonly csrf: string;
  readonly client: {
    readonly name?: string;
    readonly id: string;
    readonly metadataHost?: string;
    readonly returnTo?: string;
  };
  /** The resources (audiences) asked for, with a name a person reads. */
  readonly resources: readonly { readonly name: string; readonly url: string }[];
  readonly scopes: readonly string[];
  readonly account: Partial<Record<keyof DevAccount, string>>;
  readonly problems?: Partial<Record<keyof DevAccount, string>>;
}

export interface Frame {
  readonly brand?: PageBrand;
  readonly assets: string;
}

function field(
  view: SignInView,
  name: keyof DevAccount,
  label: string,
  hint: string,
  control: (describedBy: string, invalid: string) => string,
): string {
  const problem = view.problems?.[name];
  const describedBy = `${name}-hint${problem ? ` ${name}-error` : ''}`;
  return `<label for="${name}">${label}</label>${control(describedBy, problem ? ' aria-invalid="true"' : '')}
<p class="hint" id="${name}-hint">${hint}</p>${problem ? `<p class="error" id="${name}-error">${e(problem)}</p>` : ''}`;
}

function scopeList(scopes: readonly string[]): string {
  if (scopes.length === 0) return '<p>Only to know which organisation and person you are.</p>';
  return `<ul class="scopes">${scopes
    .map((scope) => {
      const role = minimumRole(scope);
      return `<li><span class="tag">${role ? `${e(role)}+` : 'any'}</span><span>${e(SCOPE_TEXT[scope] ?? scope)} <code class="muted small">${e(scope)}</code></span></li>`;
    })
    .join('')}</ul>`;
}

/**
 * The development sign-in and consent page, in one step: which client asks (its own name, its
 * id, where its details come from, where you will be sent back), for which resource and which
 * scopes — then who you are (organisation, person, role), Allow or Cancel.
 */
export function signInPage(frame: Frame, view: SignInView): string {
  const clientName = view.client.name ?? 'An unnamed client';
  const account = view.account;
  const roleOptions = ROLES.map(
    (r) => `<option value="${r}"${account.role === r ? ' selected' : ''}>${r[0]!.toUpperCase()}${r.slice(1)}</option>`,
  ).join('');
  const body = `<p class="eyebrow">Sign in</p>
<h1>Connect ${e(clientName)} to ${e(frame.brand?.product ?? 'this server')}</h1>
<p class="lead"><strong>${e(clientName)}</strong> asks to act on your behalf.</p>
<dl class="facts">
<dt>Client</dt><dd>${e(clientName)} <span class="muted small">(client id <code>${e(view.client.id)}</code>)</span>${
    view.client.metadataHost
      ? `<br><span class="small">Its details are published by <strong>${e(view.client.metadataHost)}</strong>.</span>`
      : '<br><span class="small muted">It registered itself; its name is its own claim.</span>'
  }</dd>
<dt>Access to</dt><dd>${view.resources.map((r) => `${e(r.name)} <code class="small">${e(r.url)}</code>`).join('<br>')}</dd>
${view.client.returnTo ? `<dt>Sends you back to</dt><dd><code>${e(view.client.returnTo)}</code></dd>` : ''}
</dl>
<div class="notice warn" role="note"><p><strong>Development sign-in, no password.</strong> Choose the organisation, person and role to act as. This page never runs in production unless explicitly allowed.</p></div>
${view.problems && Object.values(view.problems).some(Boolean) ? '<div class="notice danger" role="alert"><p><strong>Check the fields marked below.</strong> Nothing was signed in.</p></div>' : ''}
<form method="post" action="${e(view.action)}" novalidate>
<input type="hidden" name="csrf" value="${e(view.csrf)}">
<fieldset><legend>Who are you?</legend>
${field(view, 'org', 'Organisation', 'Its short name: lower-case letters, digits and dashes.', (d, i) => `<input type="text" id="org" name="org" autocomplete="organization" required aria-describedby="${d}"${i} value="${e(account.org ?? '')}">`)}
${field(view, 'user', 'Person (email)', 'Created on first use in development.', (d, i) => `<input type="email" id="user" name="user" autocomplete="email" required aria-describedby="${d}"${i} value="${e(account.user ?? '')}">`)}
${field(view, 'role', 'Role', 'Caps what the client gets: a scope above your role is not granted.', (d, i) => `<select id="role" name="role" aria-describedby="${d}"${i}>${roleOptions}</select>`)}
</fieldset>
<h2 id="scopes-heading">${e(clientName)} asks to</h2>
<section aria-labelledby="scopes-heading">${scopeList(view.scopes)}</section>
<p class="hint">Each line says the lowest role that grants it.</p>
<div class="actions">
<button class="btn primary" type="submit" name="decision" value="allow">Allow</button>
<button class="btn secondary" type="submit" name="decision" value="cancel">Cancel</button>
</div>
</form>
<p class="fine">Allow gives the client an access token valid for one hour and a refresh token valid for 14 days. Opening this page changes nothing.</p>`;
  return renderPage({ ...frame, title: `Connect ${clientName}`, body });
}

/** A sign-in that cannot go on (expired, opened in another browser, or refused), and what to do. */
export function signInProblemPage(frame: Frame, heading: string, text: string): string {
  return renderPage({
    ...frame,
    title: heading,
    body: `<p class="eyebrow">Sign in</p><h1>${e(heading)}</h1><p>${e(text)}</p>`,
  });
}
