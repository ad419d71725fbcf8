import { describeValue } from '../protocol/index.js';
import { escapeHtml } from './page-layout.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID_KEY = /(^id$|_id$|Id$)/;
const ID_LIST_KEY = /(_ids$|Ids$)/;

/** `task_id`, `memberIds`, `id`: a key that names one identifier or a list of them. */
export const isIdKey = (key: string): boolean => ID_KEY.test(key) || ID_LIST_KEY.test(key);

/** `task_id` → "Task", `cost_cap` → "Cost cap", `memberIds` → "Member": words a person reads. */
export function labelOf(key: string): string {
  const words = key
    .replace(ID_LIST_KEY, 's')
    .replace(ID_KEY, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  const text = words || 'id';
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function idHtml(id: string): string {
  return `<span class="tag">id</span><code class="id">${escapeHtml(id)}</code>`;
}

function scalarHtml(value: unknown, isId: boolean): string {
  if (value === null || value === undefined) return '<span class="muted">none</span>';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return escapeHtml(describeValue(value));
  const text = String(value);
  if (text === '') return '<span class="muted">(empty)</span>';
  if (isId || UUID.test(text)) return idHtml(text);
  if (/^https?:\/\//i.test(text)) return `<code>${escapeHtml(text)}</code>`;
  return escapeHtml(text);
}

function valueHtml(value: unknown, isId: boolean): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '<span class="muted">none</span>';
    return `<ul>${value.map((item) => `<li>${valueHtml(item, isId)}</li>`).join('')}</ul>`;
  }
  if (value !== null && typeof value === 'object') return listHtml(value as Record<string, unknown>);
  return scalarHtml(value, isId);
}

function listHtml(args: Record<string, unknown>): string {
  const rows = Object.entries(args).map(([key, value]) => {
    if (key === '…') return `<dt class="muted">More</dt><dd class="muted">${escapeHtml(describeValue(value))}</dd>`;
    const isId = isIdKey(key);
    return `<dt>${escapeHtml(labelOf(key))}</dt><dd>${valueHtml(value, isId)}</dd>`;
  });
  return rows.length ? `<dl>${rows.join('')}</dl>` : '<p class="muted">No details.</p>';
}

/**
 * An approval's argument summary (already bounded: long strings and lists cut with a marker,
 * secrets redacted) as a definition list: labels in words, ids marked as ids, nested values
 * indented — never raw JSON.
 */
export function argumentListHtml(summary: Record<string, unknown>): string {
  return `<div class="args">${listHtml(summary)}</div>`;
}
